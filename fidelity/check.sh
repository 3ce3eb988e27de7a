#!/bin/sh
# fidelity/check.sh: the short fidelity run of `make check` (two placements,
# the farm's with rendezvous races, two jobs of 90 items each, through the
# plugin and fidelity/skelrun); the full table is
# `make fidelity` (docs/fidelity.md).
exec "$(dirname "$0")/fidelity.sh" --quick
