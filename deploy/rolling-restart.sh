#!/usr/bin/env bash
# Restarts the Turnout instances one at a time (after an upgrade) so that nginx always has one to send
# clients and receivers to. For each port in turn:
#   1. restart it (it finishes its requests, closes its live clients' transports so they reconnect to
#      the others, and exits; then it starts again);
#   2. wait until the new process answers GET /api/ready on its port (a new instance id: not the old
#      process still shutting down);
#   3. wait until nginx routes to it: GET /api/ready through nginx, each try with another routing
#      cookie, until one is answered by that new process. nginx takes an instance that refused a
#      connection out for fail_timeout, and stopping the next one before nginx has taken this one back
#      would leave nginx with none (every request a 502).
# Only then the next port.
#
#   deploy/rolling-restart.sh 3001 3002
#
# Settings (environment):
#   TURNOUT_PROXY_URL      nginx's address, as clients use it (default: PUBLIC_URL from
#                          /etc/turnout/turnout.env); TURNOUT_PROXY_INSECURE=1 adds curl -k
#   TURNOUT_RESTART        the restart command, {port} replaced (default: systemctl restart turnout@{port})
#   TURNOUT_READY_TIMEOUT  seconds each wait may take (default 120: a first start after an upgrade may
#                          run migrations)
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: $0 PORT..." >&2; exit 2; }

env_file=/etc/turnout/turnout.env
proxy="${TURNOUT_PROXY_URL:-}"
if [ -z "$proxy" ] && [ -r "$env_file" ]; then
  proxy=$(sed -n 's/^PUBLIC_URL=//p' "$env_file" | tail -1 | tr -d "\"'")
fi
[ -n "$proxy" ] || { echo "set TURNOUT_PROXY_URL to nginx's address (e.g. https://turnout.example.org)" >&2; exit 2; }
restart="${TURNOUT_RESTART:-systemctl restart turnout@{port\}}"
timeout="${TURNOUT_READY_TIMEOUT:-120}"
curl_opts=(-sS --max-time 3)
[ "${TURNOUT_PROXY_INSECURE:-}" = 1 ] && curl_opts+=(-k)

# The instance id in a /api/ready answer (empty when not ready).
instance_of() {
  sed -n 's/.*"status":"ready".*"instance":"\([0-9a-f]*\)".*/\1/p'
}

for port in "$@"; do
  old=$(curl "${curl_opts[@]}" "http://127.0.0.1:$port/api/ready" 2>/dev/null | instance_of || true)
  echo "restarting turnout@$port"
  sh -c "${restart//\{port\}/$port}"

  deadline=$((SECONDS + timeout))
  new=""
  until [ -n "$new" ] && [ "$new" != "$old" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "turnout@$port is not ready after ${timeout} s: stopping here (the others still run)" >&2
      exit 1
    fi
    sleep 0.2
    new=$(curl "${curl_opts[@]}" "http://127.0.0.1:$port/api/ready" 2>/dev/null | instance_of || true)
  done
  echo "turnout@$port ready (instance $new); waiting for nginx to route to it"

  deadline=$((SECONDS + timeout))
  try=0
  until [ "$(curl "${curl_opts[@]}" -H "Cookie: turnout_node=rolling-$port-$try" "$proxy/api/ready" 2>/dev/null | instance_of || true)" = "$new" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "nginx does not route to turnout@$port after ${timeout} s: stopping here" >&2
      exit 1
    fi
    try=$((try + 1))
    sleep 0.1
  done
  echo "turnout@$port reached through nginx"
done
