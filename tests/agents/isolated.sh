#!/usr/bin/env bash
# Runs one agent command against mock_api.py inside a network namespace of its own, whose only
# interface is loopback: whatever the agent tries to reach, nothing leaves this machine, and
# the model API it is pointed at (127.0.0.1:$MOCK_PORT) records the requests.
# Usage: isolated.sh RECORD_DIR SECONDS CMD [ARG...]   (CMD sees MOCK_PORT in its environment;
# MOCK_INPUT_TOKENS sets the prompt size the mock reports, MOCK_REPLY_BYTES pads its replies)
# Exit status: CMD's, or 124 when it ran out of SECONDS.
set -euo pipefail
if [ -z "${CONDENSE_ISOLATED:-}" ]; then
  # -r maps the caller to root inside, so this works without being root outside too.
  CONDENSE_ISOLATED=1 exec unshare --net --map-root-user "$0" "$@"
fi
record=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
ip link set lo up
mkdir -p "$record"
port_file="$record/port"
rm -f "$port_file" # a port left by an earlier run in the same folder is stale
python3 "$here/mock_api.py" --record "$record" --port-file "$port_file" --seconds "$((seconds + 10))" \
  --input-tokens "${MOCK_INPUT_TOKENS:-12}" --reply-bytes "${MOCK_REPLY_BYTES:-0}" --requests 200 &
mock=$!
trap 'kill "$mock" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  [ -s "$port_file" ] && break
  sleep 0.1
done
[ -s "$port_file" ] || { echo "isolated.sh: the mock API did not start" >&2; exit 1; }
MOCK_PORT=$(cat "$port_file")
export MOCK_PORT
status=0
timeout --kill-after=5 "$seconds" "$@" || status=$?
exit "$status"
