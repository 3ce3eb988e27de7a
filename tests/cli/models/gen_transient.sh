#!/bin/sh
# K components, each with L transient local states in a line (forwards and
# back) that leak slowly (rate 0.001) into a cycle of C: (L+C)^K states,
# C^K of them recurrent.
K=$1 L=$2 C=$3
awk -v K="$K" -v L="$L" -v C="$C" 'BEGIN {
  for (k = 1; k <= K; k++) {
    for (i = 0; i < L; i++) {
      printf "W%d_%d = ", k, i
      if (i > 0) printf "(back%d, 1).W%d_%d + ", k, k, i - 1
      if (i + 1 < L) printf "(fwd%d, %g).W%d_%d;\n", k, 1 + (i % 3), k, i + 1
      else printf "(enter%d, 0.001).C%d_0;\n", k, k
    }
    for (i = 0; i < C; i++) printf "C%d_%d = (step%d, %g).C%d_%d;\n", k, i, k, 1 + ((i * k) % 5), k, (i + 1) % C
  }
  for (k = 1; k <= K; k++) printf "%sW%d_0", (k > 1 ? " <> " : ""), k; printf "\n" }'
