#!/bin/bash
# Benchmarks/csv-sort.sh - `sortkit sort` next to GNU sort and DuckDB on the benchmark data set.
#   usage: Benchmarks/csv-sort.sh [ROWS...]        (default: 1000000; e.g. 1000000 10000000)
#   SORTKIT_SCRATCH=DIR builds in DIR instead of .build (e.g. a release-only build folder).
#   SORTKIT_BASELINE=path/to/sortkit also times an earlier build in the same run, case by case.
# Writes each data set once (sortkit-bench data), then times, in the same run: the 3-key sort
# (status in declared order, author, price descending) and a single numeric key (price), for
# sortkit sort, GNU sort (LC_ALL=C, equivalent -k keys; it has no enum order and no CSV quoting,
# so its 3-key order only approximates) and DuckDB (pip; skipped if it can't be installed).
# Prints median wall seconds of SORTKIT_RUNS runs (default 3), ratios and peak memory
# (/usr/bin/time -v), and sorts the largest file again under --max-memory 256M. Needs: bc, GNU time (apt-get install time).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-1000000}")
scratch=(--scratch-path "${SORTKIT_SCRATCH:-.build}")
swift build -c release "${scratch[@]}" --product sortkit >/dev/null 2>&1
swift build -c release "${scratch[@]}" --product sortkit-bench >/dev/null 2>&1
bin=$(swift build -c release "${scratch[@]}" --show-bin-path)
work=$(mktemp -d /tmp/sortkit-csv.XXXXXX)
trap 'rm -rf "$work"' EXIT
duckdb=""
if [ -x .venv-bench/bin/python ] || { python3 -m venv .venv-bench && .venv-bench/bin/pip install -q duckdb; } >/dev/null 2>&1; then
  .venv-bench/bin/python -c 'import duckdb' 2>/dev/null && duckdb=.venv-bench/bin/python
fi
[ -n "$duckdb" ] || echo "SKIPPED DuckDB: pip install duckdb failed"

# run LABEL COMMAND...: runs the command $runs times (SORTKIT_RUNS, default 3: one run on these
# shared machines can be 30% off); prints the median seconds, all the times and the largest
# peak RSS; sets $seconds to the median.
runs=${SORTKIT_RUNS:-3}
run() {
  local label=$1; shift
  local times=() peak=0
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -v -o "$work/time.txt" "$@" >/dev/null
    times+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$work/time.txt")")
    local rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time.txt")
    ((rss > peak)) && peak=$rss
  done
  local sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  seconds=${sorted[$((runs / 2))]}
  printf "  %-34s %8.2f s  %6s MB peak   (runs: %s)\n" "$label" "$seconds" "$peak" "${times[*]}"
}

# baseline ARGS...: the same sort by SORTKIT_BASELINE's binary, and this build's time against it.
baseline() {
  [ -n "${SORTKIT_BASELINE:-}" ] || return 0
  local current=$ours
  run "baseline ($SORTKIT_BASELINE)" "$SORTKIT_BASELINE" sort "$@" --quiet -o "$work/base.csv"
  echo "  this build takes $(echo "scale=2; $current / $seconds" | bc)× the baseline's time"
  ours=$current
}

for rows in "${sizes[@]}"; do
  csv="$work/books-$rows.csv"
  "$bin/sortkit-bench" data --rows "$rows" --text "${SORTKIT_TEXT:-ascii}" --out "$csv"
  tail -n +2 "$csv" >"$csv.body"
  echo "== $rows rows ($(du -m "$csv" | cut -f1) MB)"
  enum="CASE status WHEN 'todo' THEN 0 WHEN 'reading' THEN 1 WHEN 'done' THEN 2 WHEN 'abandoned' THEN 3 ELSE 4 END"
  for case in "3 keys;status:enum=todo|reading|done|abandoned,author,-price;-k4,4 -k3,3 -k5,5gr;$enum, author, price DESC" \
              "1 numeric key;price;-k5,5g;price"; do
    IFS=';' read -r name spec gnukeys sql <<<"$case"
    echo "$name:"
    run "sortkit sort" "$bin/sortkit" sort "$csv" --by "$spec" --quiet -o "$work/out.csv"; ours=$seconds
    baseline "$csv" --by "$spec"
    # shellcheck disable=SC2086
    run "GNU sort (LC_ALL=C, 2 threads)" env LC_ALL=C sort --parallel=2 -t, $gnukeys "$csv.body" -o "$work/gnu.csv"; gnu=$seconds
    echo "  sortkit is $(echo "scale=1; $gnu / $ours" | bc)× GNU sort"
    if [ -n "$duckdb" ]; then
      run "DuckDB (COPY … ORDER BY)" "$duckdb" -c "import duckdb; duckdb.sql(\"COPY (SELECT * FROM read_csv('$csv', header=true) ORDER BY $sql) TO '$work/duck.csv' (HEADER)\")"
      echo "  sortkit is $(echo "scale=2; $seconds / $ours" | bc)× DuckDB"
    fi
  done
done
largest="$work/books-${sizes[-1]}.csv"
# The second wave's key kinds and --debug, next to what DuckDB and GNU sort do for them.
echo "== ${sizes[-1]} rows, key kinds and --debug"
for case in "by absolute price;price:abs;abs(price)" "by title length;title:len;length(title)"; do
  IFS=';' read -r name spec sql <<<"$case"
  echo "$name:"
  run "sortkit sort --by $spec" "$bin/sortkit" sort "$largest" --by "$spec" --quiet -o "$work/out.csv"; ours=$seconds
  baseline "$largest" --by "$spec"
  if [ -n "$duckdb" ]; then
    run "DuckDB (COPY … ORDER BY $sql)" "$duckdb" -c "import duckdb; duckdb.sql(\"COPY (SELECT * FROM read_csv('$largest', header=true) ORDER BY $sql) TO '$work/duck.csv' (HEADER)\")"
    echo "  sortkit is $(echo "scale=2; $seconds / $ours" | bc)× DuckDB"
  fi
done
echo "--debug (an explanation per adjacent pair, to /dev/null):"
run "sortkit sort --by price --debug" sh -c "'$bin/sortkit' sort '$largest' --by price --debug --quiet -o '$work/out.csv' 2>/dev/null"; ours=$seconds
run "GNU sort --debug -k5,5g (LC_ALL=C)" sh -c "LC_ALL=C sort --debug --parallel=2 -t, -k5,5g '$largest.body' >/dev/null 2>&1"
echo "  sortkit --debug takes $(echo "scale=1; $ours / $seconds" | bc)× GNU sort --debug's time"

echo "== ${sizes[-1]} rows under --max-memory 256M"
run "sortkit sort (3 keys, 256M)" "$bin/sortkit" sort "$largest" --by "status:enum=todo|reading|done|abandoned,author,-price" --max-memory 256M --quiet -o "$work/out.csv"; ours=$seconds
baseline "$largest" --by "status:enum=todo|reading|done|abandoned,author,-price" --max-memory 256M
echo "  rows in = $(($(wc -l <"$largest") - 1)), rows out = $(($(wc -l <"$work/out.csv") - 1))"
