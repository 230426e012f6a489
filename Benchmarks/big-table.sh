#!/bin/bash
# Benchmarks/big-table.sh - a big CSV served, searched and viewed, next to DuckDB (not part of the tests).
#   usage: Benchmarks/big-table.sh [ROWS] [RUNS]        (defaults: 1000000 rows, 5 runs)
#   PostgreSQL too when DATABASE_URL is set (e.g. under .ci/pg.sh).
# Builds the release binaries and the benchmark CSV, then in one run:
#   - `sortkit serve big.csv` on SQLite (and PostgreSQL): the time until the table is served,
#     then every interaction over HTTP (curl's total time): the first request (cold: nothing
#     cached) and the median of RUNS more (answered from the server's per-table cache), and
#     the server's peak memory;
#   - DuckDB (PyPI duckdb, 2 threads) loading the same CSV and answering the same questions
#     (the page and its count, as the API returns both), median of RUNS;
#   - `sortkit view` and DuckDB's query over read_csv, each a fresh process (median of RUNS,
#     peak memory from GNU time);
#   - writes of a selection, one request each: a bulk delete of 1,000 rows and a block move of
#     100 rows in My order (after the last row), each followed by the first page it changes (the first move writes
#     the manual order of every row out: it is the cold figure), next to DuckDB's DELETE … IN
#     and an UPDATE of a position column, each with the same page query.
# Prints a Markdown table with the ratio SortKit / DuckDB (below 1: SortKit is faster).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
runs=${2:-5}
# SORTKIT_SKIP_BUILD=1: use the release binaries built already (sources being edited meanwhile).
if [ -z "${SORTKIT_SKIP_BUILD:-}" ]; then
  swift build -c release --product sortkit >/dev/null
  swift build -c release --product sortkit-bench >/dev/null
fi
bin=$(swift build -c release --show-bin-path)
# SORTKIT_BIN: another sortkit binary to serve and view with (an earlier build, to compare).
sortkit=${SORTKIT_BIN:-$bin/sortkit}
if [ ! -x .venv-bench/bin/python ] || ! .venv-bench/bin/python -c 'import duckdb' 2>/dev/null; then
  python3 -m venv .venv-bench && .venv-bench/bin/pip install -q duckdb
fi
command -v /usr/bin/time >/dev/null || { echo "big-table.sh: GNU time is missing (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d /tmp/sortkit-big.XXXXXX)
server=""
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$bin/sortkit-bench" data --rows "$rows" --text "${SORTKIT_TEXT:-ascii}" --out "$work/big.csv" >/dev/null
echo "data: $rows rows, $(du -m "$work/big.csv" | cut -f1) MB, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%M:%SZ)" >&2
deep=$(( rows / 2 ))
lastpage=$(( rows / 50 ))
q1="isla"; q2="isla 7"
# name | API path (SortKit) | DuckDB page query | DuckDB count query ("" = the table's count)
cols="id, title, author, status, price, published, pages"
match() { echo "strip_accents(lower(concat_ws(chr(31), $cols))) LIKE '%$1%'"; }
interactions=(
  "first page by title (API)|/api/tables/big/rows?sort=title&limit=25|SELECT * FROM t ORDER BY title, id LIMIT 25|"
  "first page by -title|/api/tables/big/rows?sort=-title&limit=25|SELECT * FROM t ORDER BY title DESC, id LIMIT 25|"
  "first page by -price,title|/api/tables/big/rows?sort=-price,title&limit=25|SELECT * FROM t ORDER BY price DESC, title, id LIMIT 25|"
  "offset $deep by author,-published|/api/tables/big/rows?sort=author,-published&limit=25&offset=$deep|SELECT * FROM t ORDER BY author, published DESC, id LIMIT 25 OFFSET $deep|"
  "search q=$q1 with its count|/api/tables/big/rows?q=$q1&limit=25|SELECT * FROM t WHERE $(match isla) LIMIT 25|SELECT count(*) FROM t WHERE $(match isla)"
  "search q=$q2 by title, with its count|/api/tables/big/rows?q=isla%207&sort=title&limit=25|SELECT * FROM t WHERE $(match isla) AND $(match 7) ORDER BY title, id LIMIT 25|SELECT count(*) FROM t WHERE $(match isla) AND $(match 7)"
  "HTML page by title|/tables/big?sort=title|SELECT * FROM t ORDER BY title, id LIMIT 25|"
  "HTML page $lastpage by title (size 50)|/tables/big?sort=title&size=50&page=$lastpage|SELECT * FROM t ORDER BY title, id LIMIT 50 OFFSET $(( (lastpage - 1) * 50 ))|"
  "first page by title:len|/api/tables/big/rows?sort=title:len&limit=25|SELECT * FROM t ORDER BY length(title), id LIMIT 25|"
  "first page by -price:abs,title|/api/tables/big/rows?sort=-price:abs,title&limit=25|SELECT * FROM t ORDER BY abs(price) DESC, title, id LIMIT 25|"
  "first page by title:locale=sv|/api/tables/big/rows?sort=title:locale=sv&limit=25|SELECT * FROM t ORDER BY title COLLATE sv, id LIMIT 25|"
  "first page by title:random=7 (a seeded shuffle)|/api/tables/big/rows?sort=title:random=7&limit=25|SELECT * FROM t ORDER BY hash(title, 7), id LIMIT 25|"
  "offset $deep by title:len, 10 s after its first page|wait10:/api/tables/big/rows?sort=title:len&limit=25&offset=$deep|SELECT * FROM t ORDER BY length(title), id LIMIT 25 OFFSET $deep|"
  "offset $deep by -price:abs,title, 10 s after its first page|wait10:/api/tables/big/rows?sort=-price:abs,title&limit=25&offset=$deep|SELECT * FROM t ORDER BY abs(price) DESC, title, id LIMIT 25 OFFSET $deep|"
  "filter[author]=lem by title, with its count|/api/tables/big/rows?filter%5Bauthor%5D=lem&sort=title&limit=25|SELECT * FROM t WHERE strip_accents(lower(author)) LIKE '%lem%' ORDER BY title, id LIMIT 25|SELECT count(*) FROM t WHERE strip_accents(lower(author)) LIKE '%lem%'"
  "page by -price,title with explain=1|/api/tables/big/rows?sort=-price,title&limit=25&explain=1|SELECT * FROM t ORDER BY price DESC, title, id LIMIT 25|"
  "download all rows by title as CSV (rows.csv vs COPY TO)|/api/tables/big/rows.csv?sort=title|COPY (SELECT * FROM t ORDER BY title, id) TO '$work/duck-out.csv' (HEADER)|"
  "download search $q1 by -price as CSV|/api/tables/big/rows.csv?q=$q1&sort=-price|COPY (SELECT * FROM t WHERE $(match isla) ORDER BY price DESC, id) TO '$work/duck-out.csv' (HEADER)|"
  "DataTables: search $q1, by -price|/datatables/big?draw=1&start=0&length=25&search%5Bvalue%5D=$q1&order%5B0%5D%5Bcolumn%5D=4&order%5B0%5D%5Bdir%5D=desc&columns%5B4%5D%5Bdata%5D=price&columns%5B0%5D%5Bdata%5D=id&columns%5B1%5D%5Bdata%5D=title&columns%5B2%5D%5Bdata%5D=author&columns%5B3%5D%5Bdata%5D=status|SELECT * FROM t WHERE $(match isla) ORDER BY price DESC, id LIMIT 25|SELECT count(*) FROM t WHERE $(match isla)"
)

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ms() { case $1 in refused*) echo "$1" ;; *) awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }' ;; esac; }

# Pages with row 500,000 pinned: SortKit's path | DuckDB ordering that row first.
pinned_cases=("sort=title&limit=25|SELECT * FROM t ORDER BY (id = 500000) DESC, title, id LIMIT 25"
              "q=isla&sort=-price&limit=25|SELECT * FROM t WHERE $(match isla) ORDER BY (id = 500000) DESC, price DESC, id LIMIT 25")

# DuckDB: load, then each question RUNS times; prints "load seconds" then one median per line.
printf '%s\n' "${interactions[@]}" > "$work/interactions"
printf '%s\n' "${pinned_cases[@]}" > "$work/pinned-cases"
cat > "$work/duck.py" <<'EOF'
import duckdb, statistics, sys, time
csv, runs, path, mid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
con = duckdb.connect(config={"threads": 2})
start = time.perf_counter()
con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv('{csv}')")
print(f"{time.perf_counter() - start:.4f}")
for line in open(path):
    _, _, page, count = line.rstrip("\n").split("|")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        con.execute(page).fetchall()
        con.execute(count or "SELECT count(*) FROM t").fetchall()
        times.append(time.perf_counter() - start)
    print(f"{statistics.median(times):.4f}")
# Writes of a selection (ids as big-table.sh's SortKit runs use them), each with the page after.
def timed(statements):
    start = time.perf_counter()
    for statement in statements:
        con.execute(statement).fetchall()
    return time.perf_counter() - start
def ids(first, count):
    return ",".join(str(i) for i in range(first, first + count))
deletes = [timed([f"DELETE FROM t WHERE id IN ({ids(r * 1000 + 1, 1000)})",
                  "SELECT * FROM t ORDER BY title, id LIMIT 25"]) for r in range(1, runs + 1)]
print(f"{statistics.median(deletes):.4f}")
con.execute("ALTER TABLE t ADD COLUMN pos DOUBLE")
con.execute("UPDATE t SET pos = id")
last = con.execute("SELECT max(id) FROM t").fetchone()[0]
moves = [timed([f"UPDATE t SET pos = {last} + (id - {mid + r * 100}) / 1000.0 WHERE id IN ({ids(mid + r * 100 + 1, 100)})",
                "SELECT * FROM t ORDER BY pos, id LIMIT 25"]) for r in range(1, runs + 1)]
print(f"{statistics.median(moves):.4f}")
for line in open(path.replace("interactions", "pinned-cases")):
    sql = line.rstrip("\n").split("|")[1]
    print(f"{statistics.median([timed([sql, 'SELECT count(*) FROM t']) for _ in range(runs)]):.4f}")
EOF
mapfile -t duck < <(.venv-bench/bin/python "$work/duck.py" "$work/big.csv" "$runs" "$work/interactions" "$deep")

# SortKit over HTTP: "cold median" per interaction, after the import.
serve() {  # $1 = label, rest = backend options
  local label=$1; shift
  local port; port=$(shuf -i 20000-32767 -n 1)
  # The writes of the phase before (an earlier server's gigabytes) flushed first: DuckDB's load
  # ran on a quiet disk, and an import timed while the kernel writes those out waits on them.
  sync
  local start; start=$(date +%s.%N)
  # SORTKIT_SERVE_ARGS: more options for the measured servers (`--index-memory 64M`).
  # shellcheck disable=SC2086
  "$sortkit" serve "$work/big.csv" "$@" ${SORTKIT_SERVE_ARGS:-} --port "$port" 2>"$work/server.log" &
  server=$!
  # The server's own memory (anonymous: heap and stacks): VmHWM also counts the pages of the
  # SQLite file it maps (`mmap_size`), which are the OS's page cache. Sampled every 20 ms until
  # every index is made (the import's peak lasts a fraction of a second), every 0.1 s after;
  # each sample tagged with its phase.
  rm -f "$work/$label.indexed"
  (while kill -0 "$server" 2>/dev/null; do
    phase=import; [ -e "$work/$label.indexed" ] && phase=after
    awk -v phase=$phase '/RssAnon/ { print phase, $2 }' "/proc/$server/status" 2>/dev/null
    if [ $phase = import ]; then sleep 0.02; else sleep 0.1; fi
  done > "$work/$label.anon") &
  local sampler=$!
  until curl -sf "http://127.0.0.1:$port/api/tables/big/rows?limit=1" >/dev/null; do
    kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.05
  done
  local import; import=$(echo "$(date +%s.%N) - $start" | bc)
  echo "import|$import" > "$work/$label"
  # A table served from the database is served once its rows are in; SQLite makes its column
  # and search indexes after that, in the background (`"indexing": true` meanwhile). The
  # interactions below are measured once they are made.
  while curl -sf "http://127.0.0.1:$port/api/tables" | grep -q '"indexing":true'; do sleep 0.1; done
  echo "$(date +%s.%N) - $start" | bc > "$work/$label.indexed"
  for line in "${interactions[@]}"; do
    IFS='|' read -r _ path _ _ <<< "$line"
    # `waitN:`: the question is asked N seconds after the one before (an order's background
    # work done: a ranking built, or the whole order of a table served from the database kept).
    case $path in wait*:*) sleep "$(echo "${path%%:*}" | tr -dc 0-9)"; path=${path#*:} ;; esac
    local url="http://127.0.0.1:$port$path"
    # A refused question (a table served from the database refuses orders it keeps no
    # index for) is reported as such.
    local answer; answer=$(curl -s -o /dev/null -w '%{time_total} %{http_code}' "$url")
    if [ "${answer#* }" -ge 400 ]; then echo "refused ${answer#* }|refused ${answer#* }" >> "$work/$label"; continue; fi
    local cold=${answer% *}
    # A warm run refused (the question past its budget at this size) makes the median one.
    local med; med=$(for _ in $(seq "$runs"); do curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$url"; done \
      | awk '$1 >= 400 { print "refused"; exit } { print $2 }' | median)
    echo "$cold|$med" >> "$work/$label"
  done
  # Writes of a selection: run 0 is the cold one (the first move writes the manual order out).
  local api="http://127.0.0.1:$port/api/tables/big"
  ids() { seq "$1" "$2" | paste -sd,; }   # first last → "first,…,last"
  # "first|median" of RUNS + 1 writes, each followed by the page it changes: $1 = route,
  # $2 = page, $3 = a function of the run that prints the JSON body.
  write_then_read() {
    local times=() r t1 t2
    for r in $(seq 0 "$runs"); do
      # A refused write or page (past its budget at this size) is reported, not fatal: a
      # 30M-row run once ended here, its results lost.
      t1=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -H 'Content-Type: application/json' -d "$($3 "$r")" "$api/$1")
      t2=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$api/$2")
      if [ "${t1% *}" -ge 400 ] || [ "${t2% *}" -ge 400 ]; then echo "refused ${t1% *} ${t2% *}|refused"; return; fi
      times+=("$(echo "${t1#* } + ${t2#* }" | bc)")
    done
    echo "${times[0]}|$(printf '%s\n' "${times[@]:1}" | median)"
  }
  delete_body() { echo "{\"ids\": [$(ids $(($1 * 1000 + 1)) $(($1 * 1000 + 1000)))]}"; }
  move_body() { echo "{\"ids\": [$(ids $((deep + $1 * 100 + 1)) $((deep + $1 * 100 + 100)))], \"after\": $rows}"; }
  write_then_read rows/delete "rows?sort=title&limit=25" delete_body >> "$work/$label"
  write_then_read rows/move "rows?sort=manual&limit=25" move_body >> "$work/$label"
  # The same file imported over HTTP (POST /api/tables, text/csv), until the reply.
  # A file over the server's upload limit (256 MB: 10M rows are 687 MB) is answered 413 after
  # its first bytes; the table says so instead of a time.
  sync
  local answer; answer=$(curl -s -o /dev/null -w '%{time_total} %{http_code}' -H 'Content-Type: text/csv' \
    --data-binary "@$work/big.csv" "http://127.0.0.1:$port/api/tables?name=upload" || true)
  if [ "${answer#* }" = 201 ]; then echo "${answer% *}" > "$work/$label.upload"; else echo "refused (HTTP ${answer#* })" > "$work/$label.upload"; fi
  local hwm; hwm=$(awk '/VmHWM/ { printf "%d MB", $2 / 1024 }' "/proc/$server/status")
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
  wait "$sampler" 2>/dev/null || true
  local import_peak life_peak
  import_peak=$(awk '$1 == "import" && $2 > m { m = $2 } END { printf "%d MB", m / 1024 }' "$work/$label.anon")
  life_peak=$(awk '$2 > m { m = $2 } END { printf "%d MB", m / 1024 }' "$work/$label.anon")
  echo "$label server peak memory: $import_peak anonymous until every index is made, $life_peak over its life (sampled), $hwm VmHWM (with mapped database pages)" >&2
}
serve sqlite --db "$work/big.sqlite"
backends=(sqlite)
# Pinned rows: the stored table served again with row 500,000 pinned; the same pages next to
# DuckDB ordering that row first.
pinned_port=$(shuf -i 20000-32767 -n 1)
"$sortkit" serve --db "$work/big.sqlite" --pin big=500000 --port "$pinned_port" 2>"$work/server.log" &
server=$!
until curl -sf "http://127.0.0.1:$pinned_port/api/tables/big/rows?limit=1" >/dev/null; do sleep 0.05; done
for c in "${pinned_cases[@]}"; do
  url="http://127.0.0.1:$pinned_port/api/tables/big/rows?${c%%|*}"
  cold=$(curl -sf -o /dev/null -w '%{time_total}' "$url")
  med=$(for _ in $(seq "$runs"); do curl -sf -o /dev/null -w '%{time_total}\n' "$url"; done | median)
  echo "$cold|$med" >> "$work/pinned"
done
kill "$server"; wait "$server" 2>/dev/null || true; server=""
if [ -n "${DATABASE_URL:-}" ]; then
  # A fresh database, so that the import is measured (a stored table would be served as is).
  pgdb="sortkit_bench_$$"
  psql "$DATABASE_URL" -q -c "CREATE DATABASE $pgdb" >/dev/null
  serve postgres --postgres "${DATABASE_URL%/*}/$pgdb"
  # FORCE: the server's background VACUUM after the import may still hold a session.
  psql "$DATABASE_URL" -q -c "DROP DATABASE $pgdb WITH (FORCE)" >/dev/null
  backends+=(postgres)
fi

# sortkit view vs DuckDB over read_csv, fresh processes.
views=(
  "view --by title|--by title|SELECT * FROM read_csv('$work/big.csv') ORDER BY title, id LIMIT 20"
  "view --by -price,title|--by -price,title|SELECT * FROM read_csv('$work/big.csv') ORDER BY price DESC, title, id LIMIT 20"
  "view --search $q1 (page and count)|--search $q1|SELECT *, count(*) OVER () FROM read_csv('$work/big.csv') WHERE $(match isla) LIMIT 20"
  "view --search $q1 --by title|--search $q1 --by title|SELECT *, count(*) OVER () FROM read_csv('$work/big.csv') WHERE $(match isla) ORDER BY title, id LIMIT 20"
  "view --by title --page $lastpage|--by title --page $lastpage|SELECT * FROM read_csv('$work/big.csv') ORDER BY title, id LIMIT 20 OFFSET $(( (lastpage - 1) * 20 ))"
  "view --by author,-published --page $(( rows / 40 ))|--by author,-published --page $(( rows / 40 ))|SELECT * FROM read_csv('$work/big.csv') ORDER BY author, published DESC, id LIMIT 20 OFFSET $(( (rows / 40 - 1) * 20 ))"
)
timed() {  # prints "seconds KB" for a command, median time of RUNS and the largest peak RSS
  local times=() peak=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null
    read -r t kb < "$work/time"
    times+=("$t"); [ "$kb" -gt "$peak" ] && peak=$kb
  done
  echo "$(printf '%s\n' "${times[@]}" | median) $peak"
}

echo
echo "| interaction | SortKit SQLite cold / median ms |$( [ ${#backends[@]} -gt 1 ] && echo ' SortKit PostgreSQL cold / median ms |') DuckDB median ms | ratio SQLite cold / DuckDB |"
echo "|---|---|$( [ ${#backends[@]} -gt 1 ] && echo '---|')---|---|"
mapfile -t sq < "$work/sqlite"
[ ${#backends[@]} -gt 1 ] && mapfile -t pg < "$work/postgres"
line="| import until served ($rows rows) | $(ms "${sq[0]#import|}") |"
[ ${#backends[@]} -gt 1 ] && line+=" $(ms "${pg[0]#import|}") |"
echo "$line $(ms "${duck[0]}") (load) | $(awk -v a="${sq[0]#import|}" -v b="${duck[0]}" 'BEGIN { printf "%.1f×", a / b }') |"
line="| import until every index is made ($rows rows) | $(ms "$(cat "$work/sqlite.indexed")") |"
[ ${#backends[@]} -gt 1 ] && line+=" $(ms "$(cat "$work/postgres.indexed")") |"
echo "$line $(ms "${duck[0]}") (load) | $(awk -v a="$(cat "$work/sqlite.indexed")" -v b="${duck[0]}" 'BEGIN { printf "%.1f×", a / b }') |"
writes=("delete 1,000 selected rows, then the page by title" "move 100 selected rows as a block in My order, then its page")
for i in $(seq 0 $(( ${#interactions[@]} + ${#writes[@]} - 1 ))); do
  if [ "$i" -lt ${#interactions[@]} ]; then name=${interactions[$i]%%|*}; else name=${writes[$(( i - ${#interactions[@]} ))]}; fi
  IFS='|' read -r cold med <<< "${sq[$((i + 1))]}"
  line="| $name | $(ms "$cold") / $(ms "$med") |"
  if [ ${#backends[@]} -gt 1 ]; then IFS='|' read -r pcold pmed <<< "${pg[$((i + 1))]}"; line+=" $(ms "$pcold") / $(ms "$pmed") |"; fi
  echo "$line $(ms "${duck[$((i + 1))]}") | $(awk -v a="$cold" -v b="${duck[$((i + 1))]}" 'BEGIN { if (a + 0 > 0) printf "%.2f×", a / b; else print "—" }') |"
done
echo
echo "| with row 500,000 pinned (SQLite, API) | SortKit cold / median ms | DuckDB median ms (pinned row ordered first) | ratio cold |"
echo "|---|---|---|---|"
mapfile -t pn < "$work/pinned"
base=$(( ${#interactions[@]} + 3 ))
for i in "${!pinned_cases[@]}"; do
  IFS='|' read -r cold med <<< "${pn[$i]}"
  d=${duck[$((base + i))]}
  echo "| ${pinned_cases[$i]%%|*} | $(ms "$cold") / $(ms "$med") | $(ms "$d") | $(awk -v a="$cold" -v b="$d" 'BEGIN { printf "%.2f×", a / b }') |"
done
upload() { case $(cat "$work/$1.upload") in refused*) cat "$work/$1.upload" ;; *) echo "$(ms "$(cat "$work/$1.upload")") ms" ;; esac; }
line="| POST /api/tables, the same CSV as text/csv, until the reply | SQLite $(upload sqlite)"
[ ${#backends[@]} -gt 1 ] && line+=", PostgreSQL $(upload postgres)"
echo "$line | DuckDB load $(ms "${duck[0]}") ms | $(awk -v a="$(cat "$work/sqlite.upload")" -v b="${duck[0]}" 'BEGIN { if (a + 0 > 0) printf "%.1f×", a / b; else print "—" }') |"
echo
echo "| whole process (fresh) | sortkit view ms, peak MB | DuckDB read_csv ms, peak MB | ratio |"
echo "|---|---|---|---|"
for v in "${views[@]}"; do
  IFS='|' read -r name args sql <<< "$v"
  read -r st sk <<< "$(timed "$sortkit" view "$work/big.csv" $args)"
  read -r dt dk <<< "$(timed .venv-bench/bin/python -c "import duckdb; duckdb.connect(config={'threads': 2}).execute(\"$sql\").fetchall()")"
  echo "| $name | $(ms "$st"), $((sk / 1024)) | $(ms "$dt"), $((dk / 1024)) | $(awk -v a="$st" -v b="$dt" 'BEGIN { printf "%.2f×", a / b }') |"
done
echo "(file: $(( $(stat -c %s "$work/big.csv") / 1048576 )) MB)"
