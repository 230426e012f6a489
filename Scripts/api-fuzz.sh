#!/bin/bash
# Contract fuzzing: schemathesis (PyPI) against a running `sortkit serve` and its own OpenAPI
# document (GET /api/openapi.json), with a fixed generation (deterministic mode) and a bounded
# number of examples per operation, so a run takes seconds and repeats. Checks: no 5xx, responses
# conforming to their schemas, only documented statuses and content types, schema-violating
# requests rejected, 405 with a matching Allow for undeclared methods, and the stateful links
# (import → rows → add → edit → move → delete → drop).
#   usage: Scripts/api-fuzz.sh [EXAMPLES]          (default 30 per operation)
#   SORTKIT_BIN=path/to/sortkit (default: the debug build), SCHEMATHESIS=path (default: .venv-e2e's)
#   SORTKIT_FUZZ_PROTECTED=1 serves with a token and --protect-reads, and schemathesis sends the
#   token with every request: the routes behind the trust checks, fuzzed as a team's server runs.
# Two checks are left out, each for a reason the JSON Schema can't carry:
#   positive_data_acceptance — a schema-valid body can still be a bad CSV (a control character in
#     a header, a ragged row) or a move whose anchor is in its own block: the server answers 400
#     with the reason, as it should;
#   ensure_resource_availability — a write body naming a column the table lacks is 404 ("404 for
#     unknown table/row/column" is the API's fixed contract), which the check reads as the created
#     table having vanished.
set -euo pipefail
cd "$(dirname "$0")/.."
examples=${1:-30}
bin=${SORTKIT_BIN:-$(swift build --show-bin-path)/sortkit}
schemathesis=$(realpath "${SCHEMATHESIS:-.venv-e2e/bin/schemathesis}")
work=$(mktemp -d /tmp/sortkit-api-fuzz.XXXXXX)
server=""
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
protect=() auth=()
if [ -n "${SORTKIT_FUZZ_PROTECTED:-}" ]; then
  token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
  protect=(--protect-reads) auth=(--header "Authorization: Bearer $token")
  export SORTKIT_TOKEN=$token
fi
"$bin" serve --db "$work/fuzz.sqlite" --port "$port" "${protect[@]}" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 240); do
  curl -sf "${auth[@]}" "http://127.0.0.1:$port/api/tables" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.5
done
cd "$work"
status=0
"$schemathesis" run "http://127.0.0.1:$port/api/openapi.json" --url "http://127.0.0.1:$port" --checks all "${auth[@]}" \
  --exclude-checks positive_data_acceptance,ensure_resource_availability \
  --max-examples "$examples" --generation-deterministic --workers 1 --request-timeout 30 \
  --suppress-health-check all --no-color || status=$?
# Every request's log line is "METHOD PATH STATUS TIMEms": any 5xx but the 503 of a query over
# its budget is a failure.
if grep -E ' [A-Z]+ /[^ ]* 5[0-9]{2} [0-9.]+ms' server.log | grep -vE ' 503 [0-9.]+ms' | grep -q .; then
  echo "== the server answered 5xx:"; grep -E ' [A-Z]+ /[^ ]* 5[0-9]{2} [0-9.]+ms' server.log | head -20; status=1
fi
exit $status
