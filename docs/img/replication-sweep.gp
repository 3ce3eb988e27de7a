# gnuplot docs/img/replication-sweep.gp  (written by skelsched advise --plot)
set terminal svg size 720,450 font 'sans,11'
set xlabel 'Rate'
set ylabel 'Throughput'
set key left top
set grid
set style data linespoints
set output 'docs/img/replication-sweep-bottleneck.svg'
set title 'Bottleneck t2 (bottleneck, rate 50)'
plot 'docs/img/replication-sweep.dat' using 1:2 title 'uniform' lw 2, '' using 1:3 title 'bottleneck' lw 2
set output 'docs/img/replication-sweep-replication.svg'
set title 't2 replicated'
plot 'docs/img/replication-sweep.dat' using 1:3 title 'bottleneck' lw 2, '' using 1:4 title 'deal2' lw 2, '' using 1:5 title 'deal3' lw 2, '' using 1:6 title 'farm2' lw 2, '' using 1:7 title 'farm3' lw 2
