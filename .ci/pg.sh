#!/bin/bash
# .ci/pg.sh - runs a command against a throwaway PostgreSQL cluster (Debian 12, as root, no tty).
#   usage: .ci/pg.sh swift test    -> exports DATABASE_URL (db "ci", C collation),
#                                      DATABASE_URL_ICU (db "ci_icu", ICU en-US collation),
#                                      DATABASE_URL_STANDBY (db "ci" on a hot standby of it),
#                                      DATABASE_URL_BOUNCER (db "ci_bouncer" through PgBouncer in
#                                      transaction mode) and SORTKIT_PSQL (psql, for PgBouncer's console)
set -euo pipefail
PGDIR=${CI_PG_DIR:-/tmp/ci-pg}  # fixed: a killed run's leftovers are found; short: socket path <108 bytes
# 1. Install if missing: no Recommends (exim4, cron, sysstat...), and no default "main" cluster.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || [ ! -x /usr/sbin/pgbouncer ]; then
  mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/ci.conf
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql pgbouncer </dev/null >/dev/null
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)  # initdb/pg_ctl are not on PATH
as_pg() { (cd / && runuser -u postgres -- "$@"); }              # initdb/postgres refuse to run as root
stop_pgbouncer() {  # the one its pid file names, if that process is a pgbouncer
  local pid
  pid=$(cat "$PGDIR/pgbouncer.pid" 2>/dev/null) || true
  [ -z "$pid" ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != pgbouncer ] || kill "$pid" 2>/dev/null || true
}
pg_cleanup() {  # stop if running, delete everything; also clears leftovers of a kill -9'd run
  stop_pgbouncer
  for data in "$PGDIR/standby" "$PGDIR/data"; do
    [ ! -f "$data/postmaster.pid" ] ||
      as_pg "$PGBIN/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
  done
  rm -rf "$PGDIR"
}
pg_cleanup
trap pg_cleanup EXIT  # bash runs it on normal exit, set -e failures, INT/TERM/HUP (not on SIGKILL)
# 2. Cluster owned by "postgres". Force UTF8: with LANG unset initdb picks SQL_ASCII, which ICU rejects.
install -d -m 700 -o postgres -g postgres "$PGDIR"
as_pg "$PGBIN/initdb" -D "$PGDIR/data" -U postgres -E UTF8 --locale=C -N --no-instructions \
  --auth-local=trust --auth-host=scram-sha-256 >"$PGDIR/initdb.log"
# Random port, retried if taken. TCP on 127.0.0.1 only; socket + lock file in $PGDIR (not /var/run/postgresql).
# 300 connections (100 by default): the suite runs many stores side by side, each with its own
# pool, and a store's background index build holds one while it waits for older transactions.
start_cluster() {  # data folder, log file; sets PORT
  for try in 1 2 3 4 5 6 7 8; do
    PORT=$(shuf -i 20000-32767 -n 1)  # below the ephemeral range
    as_pg "$PGBIN/pg_ctl" -D "$1" -l "$2" -w -s -o "-h 127.0.0.1 -p $PORT -k $PGDIR -c fsync=off -c max_connections=300" start && return 0
  done
  cat "$2" >&2
  exit 1
}
start_cluster "$PGDIR/data" "$PGDIR/server.log"
PGPORT=$PORT
# 3. Test role + DBs owned by it (PG15: only the owner may CREATE in schema public). One -c per
#    statement: psql sends a multi-statement -c as one transaction, where CREATE DATABASE fails.
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDIR" -p "$PGPORT" -U postgres -d postgres \
  -c "CREATE ROLE ci LOGIN CREATEDB PASSWORD 'ci'" -c "CREATE DATABASE ci OWNER ci" \
  -c "CREATE DATABASE ci_icu OWNER ci TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'" \
  -c "CREATE DATABASE ci_bouncer OWNER ci"
# A test pauses the standby's replay to see a read wait for it (granted before the standby is made).
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDIR" -p "$PGPORT" -U postgres -d ci \
  -c "GRANT EXECUTE ON FUNCTION pg_wal_replay_pause(), pg_wal_replay_resume() TO ci"
# 4. A hot standby streaming from the primary (the default wal_level=replica and initdb's local
#    replication line are all pg_basebackup needs; -R writes the standby's primary_conninfo; -c fast
#    checkpoints now instead of waiting for a spread one).
as_pg "$PGBIN/pg_basebackup" -h "$PGDIR" -p "$PGPORT" -U postgres -D "$PGDIR/standby" -R -X stream -c fast
start_cluster "$PGDIR/standby" "$PGDIR/standby.log"
STANDBY_PORT=$PORT
# 5. PgBouncer (Debian's, 1.18) in transaction mode in front of database ci_bouncer, under three
#    names: the primary, one a test may cut off (DISABLE + KILL on the console) as a lost
#    primary, and the standby. It refuses to run as root.
printf '"ci" "ci"\n' >"$PGDIR/userlist.txt"
for try in 1 2 3 4 5 6 7 8; do
  BOUNCER_PORT=$(shuf -i 20000-32767 -n 1)
  cat >"$PGDIR/pgbouncer.ini" <<INI
[databases]
ci_bouncer = host=127.0.0.1 port=$PGPORT dbname=ci_bouncer user=ci password=ci
ci_bouncer_lost = host=127.0.0.1 port=$PGPORT dbname=ci_bouncer user=ci password=ci
ci_bouncer_standby = host=127.0.0.1 port=$STANDBY_PORT dbname=ci_bouncer user=ci password=ci
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir = $PGDIR
auth_type = trust
auth_file = $PGDIR/userlist.txt
admin_users = ci
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
pidfile = $PGDIR/pgbouncer.pid
logfile = $PGDIR/pgbouncer.log
INI
  chown postgres "$PGDIR/pgbouncer.ini" "$PGDIR/userlist.txt"
  # -d returns once the daemon runs; a taken port shows as no listener on it.
  as_pg /usr/sbin/pgbouncer -d "$PGDIR/pgbouncer.ini" && sleep 0.3 &&
    "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$BOUNCER_PORT" -U ci -d pgbouncer -c 'SHOW VERSION' >/dev/null 2>&1 && break
  [ "$try" != 8 ] || { cat "$PGDIR/pgbouncer.log" >&2; exit 1; }
  stop_pgbouncer
  sleep 0.3
done
export PGHOST=127.0.0.1 PGPORT PGUSER=ci PGPASSWORD=ci PGDATABASE=ci  # for psql & libpq-based tools
export DATABASE_URL="postgres://ci:ci@127.0.0.1:$PGPORT/ci"
export DATABASE_URL_ICU="postgres://ci:ci@127.0.0.1:$PGPORT/ci_icu"
export DATABASE_URL_STANDBY="postgres://ci:ci@127.0.0.1:$STANDBY_PORT/ci"
export DATABASE_URL_BOUNCER="postgres://ci:ci@127.0.0.1:$BOUNCER_PORT/ci_bouncer"
export SORTKIT_PSQL="$PGBIN/psql"
# 6. Run the tests; the EXIT trap stops the server and removes $PGDIR whatever their outcome.
"$@"
