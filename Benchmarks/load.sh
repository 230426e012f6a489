#!/bin/bash
# Benchmarks/load.sh - HTTP load on `sortkit serve` over a 1M-row SQLite table (not part of the tests).
#   usage: Benchmarks/load.sh [ROWS] [SECONDS]     (needs wrk: apt-get install wrk)
# Builds the release binaries, writes the benchmark data set as CSV, imports it once, then runs
# wrk (2 threads, 16 connections, bounded in time) against a sorted page, a searched page and a
# deep cursor page, printing requests/s and latency percentiles for each.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
seconds=${2:-15}
command -v wrk >/dev/null || { echo "load.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
swift build -c release --product sortkit >/dev/null
swift build -c release --product sortkit-bench >/dev/null
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d /tmp/sortkit-load.XXXXXX)
server=""
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$bin/sortkit-bench" data --rows "$rows" --out "$work/big.csv"
port=$(shuf -i 20000-32767 -n 1)
start=$(date +%s.%N)
"$bin/sortkit" serve "$work/big.csv" --preset "Cheapest=price,title" --db "$work/load.sqlite" --port "$port" 2>"$work/server.log" &
server=$!
until curl -sf "http://127.0.0.1:$port/api/tables" >/dev/null; do
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.5
done
echo "server up with table big ($rows rows) after $(echo "$(date +%s.%N) - $start" | bc) s (import included)"
base="http://127.0.0.1:$port/api/tables/big/rows"
deep=$(( rows / 2 ))
cursor=$(curl -sf "$base?sort=price,title&limit=50&offset=$deep" | python3 -c 'import json,sys,urllib.parse; print(urllib.parse.quote(json.load(sys.stdin)["next"], safe=""))')
for name in "sorted page (preset Cheapest = price,title, indexed)|$base?preset=Cheapest&limit=50" \
            "searched page (q=garden, preset Cheapest)|$base?preset=Cheapest&q=garden&limit=50" \
            "deep cursor page (row $deep, sort=price,title)|$base?sort=price,title&limit=50&after=$cursor"; do
  label=${name%%|*}
  url=${name#*|}
  curl -sf "$url" >/dev/null   # warm: the first use of an order may add its key column
  echo "== $label"
  wrk -t2 -c16 -d"${seconds}s" --latency "$url" | grep -E "Requests/sec|^ +(50|90|99)%|Non-2xx|Socket errors"
done
