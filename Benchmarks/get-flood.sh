#!/bin/bash
# Benchmarks/get-flood.sh - the memory a flood of GETs can add to `sortkit serve`, and the first
# page after a write once they have run (not part of the tests).
#   usage: Benchmarks/get-flood.sh [ROWS] [REQUESTS]     (defaults: 1000000 rows, 60 requests)
#   SORTKIT_BIN=path/to/sortkit compares another build (the same data, the same requests);
#   SORTKIT_SERVE_FLAGS adds flags to `sortkit serve` (e.g. --table-ranking-memory 64M).
# Each request sorts a page by four keys read in ways earlier requests may not have read (a
# collation, a length, an absolute value, as text): a server that keeps every order a
# request asks for keeps a ranking of every row for each (8 bytes a row) and updates each on
# every write. Prints the server's RSS before and after, the replies' statuses, the peak, and
# the first page after one PATCH.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
requests=${2:-60}
swift build -c release --product sortkit >/dev/null
swift build -c release --product sortkit-bench >/dev/null
bin=$(swift build -c release --show-bin-path)
sortkit=${SORTKIT_BIN:-$bin/sortkit}
work=$(mktemp -d /tmp/sortkit-flood.XXXXXX)
server=""
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$bin/sortkit-bench" data --rows "$rows" --text "${SORTKIT_TEXT:-ascii}" --out "$work/big.csv" >/dev/null
port=$(shuf -i 20000-32767 -n 1)
"$sortkit" serve "$work/big.csv" --db "$work/big.sqlite" --port "$port" ${SORTKIT_SERVE_FLAGS:-} 2>"$work/server.log" &
server=$!
until curl -sf "http://127.0.0.1:$port/api/tables/big/rows?limit=1" >/dev/null; do
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.05
done
rss() { awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$server/status"; }
# Warm: the pages a user clicks first.
for sort in title -price,title author,-published; do curl -sf -o /dev/null "http://127.0.0.1:$port/api/tables/big/rows?sort=$sort&limit=25"; done
before=$(rss)
# Every way of reading each column (27 orders in all); request n takes four columns in turn,
# each read its next way, so that the requests together ask for every order.
columns=(title author status price pages published)
readings=("binary nocase fold len text" "binary nocase fold len text" "binary nocase fold len text" "abs text len num" "abs text len num" "text len")
statuses=""
start=$(date +%s.%N)
for n in $(seq 1 "$requests"); do
  keys=()
  for k in 0 1 2 3; do
    c=$(( (n + k) % 6 ))
    read -r -a ways <<< "${readings[$c]}"
    keys+=("${columns[$c]}:${ways[$(( (n / 6 + k) % ${#ways[@]} ))]}")
  done
  spec=$(IFS=,; echo "${keys[*]}")
  statuses+="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/tables/big/rows?sort=$spec&offset=10000&limit=5") "
done
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
sleep 5   # rankings a server builds in the background after a first page
after=$(rss)
curl -sf -o /dev/null -X PATCH -H 'Content-Type: application/json' -d '{"title": "Flooded"}' "http://127.0.0.1:$port/api/tables/big/rows/7"
patched=$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/api/tables/big/rows?sort=-price,title&limit=25")
echo "rows: $rows, requests: $requests (4 keys each, 27 orders in all), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%M:%SZ), binary: $sortkit"
echo "RSS before: $before MB; after: $after MB (+$(( after - before )) MB); peak $(awk '/VmHWM/ { print int($2 / 1024) }' "/proc/$server/status") MB"
echo "statuses: $(echo "$statuses" | tr ' ' '\n' | grep -v '^$' | sort | uniq -c | awk '{ printf "%s×%s ", $1, $2 }')in $(printf '%.1f' "$elapsed") s"
echo "first page by -price,title after one PATCH: $(awk -v s="$patched" 'BEGIN { printf "%.1f", s * 1000 }') ms"
echo "kept: $(curl -sf "http://127.0.0.1:$port/api/tables" | python3 -c 'import json,sys; t=[x for x in json.load(sys.stdin)["tables"] if x["name"]=="big"][0]; print(t.get("index"))' 2>/dev/null || echo "(not shown by this build)")"
