#!/bin/bash
# Benchmarks/observability.sh - what metrics and request logs cost per request (not part of the tests).
#   usage: Benchmarks/observability.sh [ROWS] [SECONDS] [ROUNDS]     (needs wrk: apt-get install wrk)
#   SORTKIT_TEXT=multilingual serves the multilingual data set.
# Imports the 1M-row benchmark table once, then serves the stored copy alternately
#   on:  --log-format json (a JSON line per request, to a file) and GET /metrics counting every
#        request (a scrape every 2 s, as a busy Prometheus would),
#   off: --log-level notice (no request lines) --no-metrics,
# ROUNDS times each (on, off, on, off, …: a drift of the machine falls on both), and runs wrk
# (1 thread, 8 connections) on a sorted page and a cached search. The server runs on CPU 1 and
# wrk on CPU 0 (taskset), so the two don't take turns on one core: on a 2-core machine that
# varied a configuration's throughput by ±30% between rounds. Prints requests/s per round, the
# median of each, and on/off: the throughput that metrics and logging keep.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
seconds=${2:-10}
rounds=${3:-7}
command -v wrk >/dev/null || { echo "observability.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
swift build -c release --product sortkit >/dev/null
swift build -c release --product sortkit-bench >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d /tmp/sortkit-observability.XXXXXX)
server=""
scraper=""
stop() {
  [ -z "$scraper" ] || kill "$scraper" 2>/dev/null || true
  [ -z "$server" ] || { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
  server=""
  scraper=""
}
cleanup() { stop; rm -rf "$work"; }
trap cleanup EXIT
"$bin/sortkit-bench" data --rows "$rows" --text "${SORTKIT_TEXT:-ascii}" --out "$work/big.csv"
port=$(shuf -i 20000-32767 -n 1)
base="http://127.0.0.1:$port/api/tables/big/rows"
serve() {  # flags…
  taskset -c 1 "$bin/sortkit" serve "$@" --db "$work/load.sqlite" --port "$port" 2>>"$work/server.log" &
  server=$!
  until curl -sf "http://127.0.0.1:$port/api/tables" >/dev/null; do
    kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.2
  done
  # The first request of a table's state builds its index and cache: not measured.
  curl -sf "$base?preset=Cheapest&limit=50" >/dev/null
  curl -sf "$base?preset=Cheapest&q=garden&limit=50" >/dev/null
}
# The import, once; every round serves the stored copy.
serve "$work/big.csv" --preset "Cheapest=price,title" --log-level notice
stop
rps() { taskset -c 0 wrk -t1 -c8 -d"${seconds}s" "$1" | awk '/Requests\/sec/ { print $2 }'; }
declare -A results
for round in $(seq 1 "$rounds"); do
  for mode in on off; do
    if [ "$mode" = on ]; then
      serve --log-format json
      (while sleep 2; do curl -sf "http://127.0.0.1:$port/metrics" >/dev/null || true; done) &
      scraper=$!
    else
      serve --log-level notice --no-metrics
    fi
    sorted=$(rps "$base?preset=Cheapest&limit=50")
    searched=$(rps "$base?preset=Cheapest&q=garden&limit=50")
    stop
    echo "round $round $mode: sorted page $sorted req/s, cached search $searched req/s"
    results[$mode.sorted]+="$sorted "
    results[$mode.searched]+="$searched "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for case in sorted searched; do
  on=$(echo "${results[on.$case]}" | median)
  off=$(echo "${results[off.$case]}" | median)
  echo "$case: median on $on req/s, off $off req/s, on/off $(echo "scale=3; $on / $off" | bc)"
done
echo "request lines written with logs on: $(grep -c '"route"' "$work/server.log" || true)"
