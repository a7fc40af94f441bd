#!/usr/bin/env bash
# A throwaway PostgreSQL that serves TLS (ssl=on, a self-signed certificate), for the bench's TLS
# rows: `start` prints the BENCH_PG_URL to use (sslmode=require; the same server also takes plain
# connections, so both runs meet one server), `stop` removes it. Under root it runs as the
# `postgres` OS user, as PostgreSQL refuses root.
#   apps/bench/scripts/tls-postgres.sh start [port]   # default 5499
#   apps/bench/scripts/tls-postgres.sh stop
set -euo pipefail
dir=/tmp/plant-store-bench-tls-pg
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "${1:-}" in
start)
  port=${2:-5499}
  rm -rf "$dir" && mkdir -p "$dir"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$dir/server.key" -out "$dir/server.crt" 2>/dev/null
  chmod 600 "$dir/server.key"
  if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C >/dev/null
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -o \
    "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" start >/dev/null
  echo "plain: postgres://postgres@127.0.0.1:$port/postgres"
  echo "TLS:   postgres://postgres@127.0.0.1:$port/postgres?sslmode=require"
  ;;
stop)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start [port] | stop" >&2
  exit 2
  ;;
esac
