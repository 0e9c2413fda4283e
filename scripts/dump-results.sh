#!/bin/sh
# dump-results.sh DB - every scalar, histogram bin and series point of the
# runs in DB as text, one per line, numbers to 17 significant digits (bit
# for bit): what tests/golden.sh keeps and scripts/same-results.sh compares.
set -eu
sqlite3 "$1" "SELECT 'scalar', name, printf('%!.17g', value) FROM scalar ORDER BY run_id, name;
	SELECT 'hist', name, printf('%!.17g', lo), count FROM hist ORDER BY run_id, name, lo;
	SELECT 'series', s.name, s.cpu, p.t_ns, printf('%!.17g', p.value) FROM point p JOIN series s USING(series_id)
	  ORDER BY s.run_id, s.name, s.cpu, p.t_ns;"
