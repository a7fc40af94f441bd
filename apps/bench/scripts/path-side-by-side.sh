#!/usr/bin/env bash
# Two builds' servers answering one unauthenticated path, side by side: each on a SQLite store of
# its own (default settings), both on core 0, each loaded at the same time by a wrk of its own (25
# connections, 4 s, after 2 s of warm-up) on core 1, the first wrk started against each build in
# turn. Prints each pair's req/s and the first build's over the second's. For paths no `pnpm bench`
# scenario asks for (`/openapi.json`, `/docs/…`: docs/explanation/performance.md, "Prepared
# answers"). Needs wrk and a built server in each folder; without taskset nothing is pinned.
#   apps/bench/scripts/path-side-by-side.sh <apps/server of build A> <apps/server of build B> <path> [pairs]
set -euo pipefail
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
path=$3
pairs=${4:-4}
work=$(mktemp -d /tmp/plant-store-path-side-by-side-XXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
pin() { if command -v taskset >/dev/null; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

start() { # <server dir> <name>: starts it on a free port, which it leaves in $port
  local dir=$1 name=$2
  port=$(free_port)
  mkdir -p "$work/$name"
  # The tokens CLI creates the store's schema, as the load bench's rows do.
  DATABASE_URL="sqlite:$work/$name/plant-store.db" node "$dir/bin/plant-store-tokens.js" create --name bench \
    --scope plants:read >/dev/null 2>&1
  local on_core=()
  if command -v taskset >/dev/null; then on_core=(taskset -c 0); fi
  # A simple command, so that $! is the server itself (taskset execs it), which cleanup stops.
  NODE_ENV=production LOG_LEVEL=warn HOST=127.0.0.1 PORT=$port DATABASE_URL="sqlite:$work/$name/plant-store.db" \
    "${on_core[@]}" node "$dir/dist/main.js" >"$work/$name.log" 2>&1 &
  pids+=($!)
}
start "$a" a
port_a=$port
start "$b" b
port_b=$port
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port_a$path" >/dev/null && curl -sf "http://127.0.0.1:$port_b$path" >/dev/null && break
  sleep 0.2
done
load() { pin 1 wrk -t1 -c25 -d"$1" "http://127.0.0.1:$2$path"; }
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
load 2s "$port_a" >/dev/null &
load 2s "$port_b" >/dev/null
wait $!
for i in $(seq 1 "$pairs"); do
  if [ $((i % 2)) = 1 ]; then
    load 4s "$port_a" >"$work/a.out" &
    load 4s "$port_b" >"$work/b.out"
  else
    load 4s "$port_b" >"$work/b.out" &
    load 4s "$port_a" >"$work/a.out"
  fi
  wait $!
  ra=$(rps "$work/a.out")
  rb=$(rps "$work/b.out")
  echo "pair $i: A $ra req/s, B $rb req/s, A/B $(awk -v a="$ra" -v b="$rb" 'BEGIN {printf "%.3f", a / b}')"
done
