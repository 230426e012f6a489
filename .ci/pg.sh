#!/bin/bash
# .ci/pg.sh - runs a command against a throwaway PostgreSQL cluster (Debian 12, as root, no tty).
#   usage: .ci/pg.sh swift test    -> exports DATABASE_URL (db "ci", C collation)
#                                      and DATABASE_URL_ICU (db "ci_icu", ICU en-US collation)
set -euo pipefail
PGDIR=${CI_PG_DIR:-/tmp/ci-pg}  # fixed: a killed run's leftovers are found; short: socket path <108 bytes
# 1. Install if missing: no Recommends (exim4, cron, sysstat...), and no default "main" cluster.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/ci.conf
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql </dev/null >/dev/null
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)  # initdb/pg_ctl are not on PATH
as_pg() { (cd / && runuser -u postgres -- "$@"); }              # initdb/postgres refuse to run as root
pg_cleanup() {  # stop if running, delete everything; also clears leftovers of a kill -9'd run
  [ ! -f "$PGDIR/data/postmaster.pid" ] ||
    as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PGDIR"
}
pg_cleanup
trap pg_cleanup EXIT  # bash runs it on normal exit, set -e failures, INT/TERM/HUP (not on SIGKILL)
# 2. Cluster owned by "postgres". Force UTF8: with LANG unset initdb picks SQL_ASCII, which ICU rejects.
install -d -m 700 -o postgres -g postgres "$PGDIR"
as_pg "$PGBIN/initdb" -D "$PGDIR/data" -U postgres -E UTF8 --locale=C -N --no-instructions \
  --auth-local=trust --auth-host=scram-sha-256 >"$PGDIR/initdb.log"
# Random port, retried if taken. TCP on 127.0.0.1 only; socket + lock file in $PGDIR (not /var/run/postgresql).
for try in 1 2 3 4 5 6 7 8; do
  PGPORT=$(shuf -i 20000-32767 -n 1)  # below the ephemeral range
  as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -s \
    -o "-h 127.0.0.1 -p $PGPORT -k $PGDIR -c fsync=off" start && break
  [ "$try" != 8 ] || { cat "$PGDIR/server.log" >&2; exit 1; }
done
# 3. Test role + DBs owned by it (PG15: only the owner may CREATE in schema public). One -c per
#    statement: psql sends a multi-statement -c as one transaction, where CREATE DATABASE fails.
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDIR" -p "$PGPORT" -U postgres -d postgres \
  -c "CREATE ROLE ci LOGIN CREATEDB PASSWORD 'ci'" -c "CREATE DATABASE ci OWNER ci" \
  -c "CREATE DATABASE ci_icu OWNER ci TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'"
export PGHOST=127.0.0.1 PGPORT PGUSER=ci PGPASSWORD=ci PGDATABASE=ci  # for psql & libpq-based tools
export DATABASE_URL="postgres://ci:ci@127.0.0.1:$PGPORT/ci"
export DATABASE_URL_ICU="postgres://ci:ci@127.0.0.1:$PGPORT/ci_icu"
# 4. Run the tests; the EXIT trap stops the server and removes $PGDIR whatever their outcome.
"$@"
