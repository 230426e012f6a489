#!/usr/bin/env bash
# Makes the README's screenshots: serves the demo library from a fresh SQLite file with a few
# sort settings, and has headless Chromium photograph pages of it (docs/screenshots/*.png).
# Needs chromium (Debian: apt-get install --no-install-recommends chromium).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift build --product sortkit >/dev/null
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.build/debug/sortkit serve --db "$work/demo.sqlite" --port "$port" --pin books=3 \
  --cycle 'books:price=desc,asc' --cycle 'books:published=desc,asc' >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/api/tables" >/dev/null 2>&1 && break
  sleep 0.2
done
shot() {
  chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --window-size="$2" --virtual-time-budget=3000 --screenshot="$root/docs/screenshots/$1.png" \
    "http://127.0.0.1:$port$3" 2>/dev/null
  echo "docs/screenshots/$1.png: $3"
}
shot table 1280,860 '/tables/books?sort=status:enum=todo|reading|done|abandoned,-price&size=25'
shot tables 1000,560 '/'
shot phone 390,844 '/tables/books?sort=-price'
