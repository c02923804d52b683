#!/usr/bin/env bash
# Proves the default a new user gets: no DATABASE_URL, so `npm start` runs an embedded
# PostgreSQL under a data folder and answers /ready.
set -euo pipefail
data_dir=$(mktemp -d)
port=${SMOKE_PORT:-3917}
log="$data_dir/service.log"
env -u DATABASE_URL DATA_DIR="$data_dir" PORT="$port" EMBEDDED_PG_PORT=$((port + 50000 % 20000)) \
  node dist/src/main.js >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -rf "$data_dir"' EXIT
for _ in $(seq 1 60); do
  if curl -fsS "http://127.0.0.1:$port/ready" >/dev/null 2>&1; then
    echo "embedded default: /ready answered $(curl -fsS "http://127.0.0.1:$port/ready")"
    grep -q 'sk-acs-' "$log" && echo "embedded default: the first-start session key was printed"
    exit 0
  fi
  sleep 1
done
echo "embedded default: the service did not become ready" >&2
cat "$log" >&2
exit 1
