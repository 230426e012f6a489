#!/bin/bash
# Benchmarks/locale-sort.sh - locale collations (UCA + CLDR) at 1M rows, beside the built-in
# collation and DuckDB's ICU collation, in one run.
#   usage: Benchmarks/locale-sort.sh [ROWS]          (default 1000000)
#   SORTKIT_TEXT=ascii|multilingual (default multilingual), SORTKIT_RUNS (default 3)
# Times, on the same CSV: `sortkit sort --by title` (natural), `--by title:locale=sv`,
# `--by title:locale=sv:nocase`, `sortkit view --by title:locale=sv` (the first screen), and
# DuckDB's `ORDER BY title COLLATE sv` writing the same CSV. Prints median wall seconds and the
# ratio of each case to DuckDB's.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
text=${SORTKIT_TEXT:-multilingual}
runs=${SORTKIT_RUNS:-3}
swift build -c release --product sortkit >/dev/null 2>&1
swift build -c release --product sortkit-bench >/dev/null 2>&1
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d /tmp/sortkit-locale.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ ! -x .venv-bench/bin/python ] || ! .venv-bench/bin/python -c 'import duckdb' 2>/dev/null; then
  python3 -m venv .venv-bench && .venv-bench/bin/pip install -q duckdb
fi
"$bin/sortkit-bench" data --rows "$rows" --text "$text" --out "$work/books.csv" >/dev/null
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_it() {  # time_it COMMAND...: median wall seconds of $runs runs
  for ((i = 0; i < runs; i++)); do
    local start=$(date +%s.%N)
    "$@" >/dev/null
    echo "$(date +%s.%N) - $start" | bc
  done | median
}
duck=$(time_it .venv-bench/bin/python -c "
import duckdb, sys
con = duckdb.connect(config={'threads': 2})
con.execute(\"COPY (SELECT * FROM read_csv('$work/books.csv', header=true, all_varchar=true) ORDER BY title COLLATE sv) TO '$work/duck.csv' (HEADER)\")
")
printf '%-44s %8s %8s\n' "case ($rows rows, $text titles)" seconds "x DuckDB"
report() { printf '%-44s %8.2f %8.2f\n' "$1" "$2" "$(echo "$2 / $duck" | bc -l)"; }
report "duckdb ORDER BY title COLLATE sv" "$duck"
report "sortkit sort --by title (natural)" "$(time_it "$bin/sortkit" sort --by title "$work/books.csv" -o "$work/a.csv")"
report "sortkit sort --by title:locale=sv" "$(time_it "$bin/sortkit" sort --by title:locale=sv "$work/books.csv" -o "$work/b.csv")"
report "sortkit sort --by title:locale=sv:nocase" "$(time_it "$bin/sortkit" sort --by title:locale=sv:nocase "$work/books.csv" -o "$work/c.csv")"
report "sortkit view --by title:locale=sv" "$(time_it "$bin/sortkit" view --by title:locale=sv "$work/books.csv")"
# The two orders agree title for title (compared in NFC: DuckDB keeps a tie's input spelling).
python3 - "$work/b.csv" "$work/duck.csv" <<'PY'
import csv, sys
import unicodedata
a = [unicodedata.normalize("NFC", r[1]) for r in csv.reader(open(sys.argv[1], encoding="utf-8"))][1:]
b = [unicodedata.normalize("NFC", r[1]) for r in csv.reader(open(sys.argv[2], encoding="utf-8"))][1:]
same = sum(1 for x, y in zip(a, b) if x == y)
print(f"titles at the same position as DuckDB's: {same} of {len(a)}")
PY
