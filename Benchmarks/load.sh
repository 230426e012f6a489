#!/bin/bash
# Benchmarks/load.sh - HTTP load on `sortkit serve` over a 1M-row SQLite table (not part of the tests).
#   usage: Benchmarks/load.sh [ROWS] [SECONDS]     (needs wrk: apt-get install wrk)
#   SORTKIT_TEXT=multilingual serves the multilingual data set; SORTKIT_SERVE_FLAGS adds flags
#   to `sortkit serve` (e.g. --log-format json, to measure what JSON logs cost per request).
# Builds the release binaries, writes the benchmark data set as CSV, imports it once, then runs
# wrk (2 threads, 16 connections, bounded in time) against a sorted page, searched pages (one
# repeated term, answered from the server's cache after the first; then a new term for every
# request) and a deep cursor page, then a sorted page alone and while new-term searches run
# beside it (1 thread and 8 connections each, so the two sorted lines compare),
# printing requests/s and p50/p90/p99 for each.
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
"$bin/sortkit-bench" data --rows "$rows" --text "${SORTKIT_TEXT:-ascii}" --out "$work/big.csv"
port=$(shuf -i 20000-32767 -n 1)
start=$(date +%s.%N)
# shellcheck disable=SC2086
"$bin/sortkit" serve "$work/big.csv" --preset "Cheapest=price,title" --db "$work/load.sqlite" --port "$port" ${SORTKIT_SERVE_FLAGS:-} 2>"$work/server.log" &
server=$!
until curl -sf "http://127.0.0.1:$port/api/tables" >/dev/null; do
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.5
done
echo "server up with table big ($rows rows) after $(echo "$(date +%s.%N) - $start" | bc) s (import included)"
base="http://127.0.0.1:$port/api/tables/big/rows"
deep=$(( rows / 2 ))
cursor=$(curl -sf "$base?sort=price,title&limit=50&offset=$deep" | python3 -c 'import json,sys,urllib.parse; print(urllib.parse.quote(json.load(sys.stdin)["next"], safe=""))')
# Searches that miss the server's cache: wrk's Lua script asks for a different term each time,
# and each wrk thread for terms of its own (even and odd numbers), so none is answered from the
# cache because another thread asked for it first.
cat > "$work/search.lua" <<'LUA'
local threads = 0
setup = function(thread)
  thread:set("id", threads)
  threads = threads + 1
end
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/api/tables/big/rows?preset=Cheapest&limit=50&q=" .. ((2 * n + id) % 1994) .. "%20i")
end
LUA
run() {  # label, url, [extra wrk args]
  echo "== $1"
  wrk -t2 -c16 -d"${seconds}s" --latency "${@:3}" "$2" | grep -E "Requests/sec|^ +(50|90|99)%|Non-2xx|Socket errors"
}
curl -sf "$base?preset=Cheapest&limit=50" >/dev/null   # the first request of a table's state builds its cache
run "sorted page (preset Cheapest = price,title)" "$base?preset=Cheapest&limit=50"
run "searched page (q=garden, preset Cheapest; cached after the first)" "$base?preset=Cheapest&q=garden&limit=50"
run "searched page (a new term each request: 'N i', preset Cheapest)" "http://127.0.0.1:$port" -s "$work/search.lua"
run "deep cursor page (row $deep, sort=price,title)" "$base?sort=price,title&limit=50&after=$cursor"
# The comparison for the next case: the same wrk (1 thread, 8 connections) with nothing beside it.
echo "== sorted page alone, as measured beside the searches next (1 thread, 8 connections)"
wrk -t1 -c8 -d"${seconds}s" --latency "$base?preset=Cheapest&limit=50" | grep -E "Requests/sec|^ +(50|90|99)%|Non-2xx|Socket errors"
echo "== sorted page while new-term searches run beside it (two wrk at once, 1 thread and 8 connections each)"
wrk -t1 -c8 -d"${seconds}s" --latency -s "$work/search.lua" "http://127.0.0.1:$port" >"$work/side.txt" &
side=$!
wrk -t1 -c8 -d"${seconds}s" --latency "$base?preset=Cheapest&limit=50" | grep -E "Requests/sec|^ +(50|90|99)%|Non-2xx|Socket errors"
wait "$side"
echo "-- the new-term searches beside it"
grep -E "Requests/sec|^ +(50|90|99)%|Non-2xx|Socket errors" "$work/side.txt"
