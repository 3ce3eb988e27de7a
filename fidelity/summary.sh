#!/bin/sh
# fidelity/summary.sh ROWS: the table of fidelity/fidelity.sh's rows
# ("skeleton mode kind placement measured ci95 predicted_old predicted_new
# runs": the mean of the runs, its 95% CI, the runs' throughputs) with
# measured/predicted ratios, then per mode and skeleton: how many rows are
# within the tolerance of the new prediction (model mode: 3% + the
# CI; real mode: 5%), Spearman's rank correlation of each prediction with
# the measurements, the plugin's placement against the best measured, and
# its gain over Slurm's default (a placement measured in two rows counts
# with the mean of both).
awk '
# the mean over the rows of one placement (the plugin'"'"'s, run again as a
# forced job, is one placement measured twice)
function pooled(k, m, p,    i, s, c) {
    for (i = 1; i <= m; i++)
        if (plan[k, i] == p) { s += meas[k, i]; c++ }
    return s / c
}
function spearman(n, a, b,    i, j, ra, rb, d) {
    for (i = 1; i <= n; i++) {
        ra[i] = 1; rb[i] = 1
        for (j = 1; j <= n; j++) {
            if (j == i) continue
            ra[i] += (a[j] > a[i]) + 0.5 * (a[j] == a[i])
            rb[i] += (b[j] > b[i]) + 0.5 * (b[j] == b[i])
        }
    }
    d = 0
    for (i = 1; i <= n; i++) d += (ra[i] - rb[i]) ^ 2
    return n > 1 ? 1 - 6 * d / (n * (n * n - 1)) : 1
}
{
    k = $1 " " $2; n[k]++; i = n[k]; if (!(k in seen)) { seen[k] = 1; order[++ng] = k }
    meas[k, i] = $5; ci[k, i] = $6; old[k, i] = $7; new[k, i] = $8
    kind[k, i] = $3; plan[k, i] = $4
    e = $5 / $8 - 1; if (e < 0) e = -e
    within[k] += e <= ($2 == "model" ? 0.03 + $6 / $5 : 0.05)
    nr = split($9, rr, ","); runs = ""
    for (j = 1; j <= nr; j++) runs = runs (j > 1 ? ", " : "") sprintf("%.2f", rr[j])
    printf "| %s | %s | %s | %s | %.2f ± %.2f | %s | %.2f | %.3f | %.2f | %.3f |\n", $1, $2, $3, $4,
        $5, $6, runs, $7, $5 / $7, $8, $5 / $8
}
BEGIN {
    print "| skeleton | mode | placement by | placement | measured (items/s, mean ± 95% CI) | runs | predicted, old semantics | measured/old | predicted, new semantics | measured/new |"
    print "|---|---|---|---|---|---|---|---|---|---|"
}
END {
    print ""
    print "| skeleton | mode | placements | within tolerance (new) | rank corr. old | rank corr. new | worst abs(ratio-1) old | worst abs(ratio-1) new | plugin measured / best measured | plugin / Slurm default |"
    print "|---|---|---|---|---|---|---|---|---|---|"
    for (g = 1; g <= ng; g++) {
        k = order[g]; m = n[k]; best = 0; pl = 0; df = 0; wo = 0; wn = 0
        for (i = 1; i <= m; i++) {
            a[i] = meas[k, i]; bo[i] = old[k, i]; bn[i] = new[k, i]
            if (kind[k, i] == "plugin") pl = pooled(k, m, plan[k, i])
            if (kind[k, i] == "default") df = pooled(k, m, plan[k, i])
        }
        for (i = 1; i <= m; i++) {
            if (pooled(k, m, plan[k, i]) > best) best = pooled(k, m, plan[k, i])
            eo = a[i] / bo[i] - 1; en = a[i] / bn[i] - 1
            if (eo < 0) eo = -eo; if (en < 0) en = -en
            if (eo > wo) wo = eo; if (en > wn) wn = en
        }
        split(k, kk, " ")
        printf "| %s | %s | %d | %d/%d | %.3f | %.3f | %.1f%% | %.1f%% | %s | %s |\n", kk[1], kk[2], m,
            within[k], m, spearman(m, a, bo), spearman(m, a, bn), 100 * wo, 100 * wn,
            (pl > 0 ? sprintf("%.3f", pl / best) : "-"), (pl > 0 && df > 0 ? sprintf("%.3f", pl / df) : "-")
        # pooled per mode
        for (i = 1; i <= m; i++) {
            pm[kk[2]]++; j = pm[kk[2]]
            pa[kk[2], j] = a[i]; po[kk[2], j] = bo[i]; pn[kk[2], j] = bn[i]
        }
    }
    for (md in pm) {
        for (j = 1; j <= pm[md]; j++) { a2[j] = pa[md, j]; o2[j] = po[md, j]; n2[j] = pn[md, j] }
        printf "| all | %s | %d | | %.3f | %.3f | | | | |\n", md, pm[md], spearman(pm[md], a2, o2),
            spearman(pm[md], a2, n2)
        delete a2; delete o2; delete n2
    }
}' "$1"
