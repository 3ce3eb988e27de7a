#!/bin/sh
# fidelity/check.sh: the short fidelity run of `make check` (two jobs of
# 130 items through the plugin and fidelity/skelrun); the full table is
# `make fidelity` (docs/fidelity.md).
exec "$(dirname "$0")/fidelity.sh" --quick
