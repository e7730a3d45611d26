#!/usr/bin/env bash
# Start a throw-away PostgreSQL server for the tests and print its URL.
#   eval "$(scripts/pg-server.sh start)"   -> exports VIVA_TEST_DB_URL and VIVA_PG_DIR
#   scripts/pg-server.sh stop "$VIVA_PG_DIR"
# PostgreSQL refuses to run as root, so as root the server runs as `postgres`.
set -euo pipefail
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
[ -x "$PG_BIN/initdb" ] || { echo "pg-server: no PostgreSQL server binaries found (set PG_BIN)" >&2; exit 1; }

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
start)
  dir=$(mktemp -d /tmp/viva-pg.XXXXXX)
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  as_pg "$PG_BIN/initdb" -D "$dir/data" -U viva --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U viva viva_test
  echo "export VIVA_PG_DIR=$dir"
  echo "export VIVA_TEST_DB_URL=postgresql+psycopg://viva@127.0.0.1:$port/viva_test"
  ;;
stop)
  dir=${2:?usage: pg-server.sh stop DIR}
  as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
