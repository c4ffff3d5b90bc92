#!/usr/bin/env bash
# Restarts the Turnout instances one at a time (after an upgrade), waiting for each to answer health
# before the next goes down, so nginx always has one to send clients to.
#   deploy/rolling-restart.sh 3001 3002
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: $0 PORT..." >&2; exit 2; }
for port in "$@"; do
  echo "restarting turnout@$port"
  systemctl restart "turnout@$port"
  for _ in $(seq 1 60); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/api/health"; then break; fi
    sleep 1
  done
  curl -fsS -o /dev/null "http://127.0.0.1:$port/api/health" || {
    echo "turnout@$port is not healthy after 60 s: stopping here (the others still run)" >&2
    exit 1
  }
  echo "turnout@$port healthy"
done
