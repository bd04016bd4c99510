#!/usr/bin/env bash
# bench/prune-agents.sh: does each real agent still load a session after `condense prune`?
# One pruned session per agent, each loaded by the agent's own code, offline:
#
#   claude-code  claude -p --resume against the mock API; the request it sends must hold the
#                placeholders, every tool_result right after its tool_use, and the newest
#                thinking block (entireio corpus session, --keep-thinking 1 --clear-inputs)
#   codex        codex exec resume against the mock API; the request must pair
#                function_call and function_call_output by call_id (a rollout Codex wrote, with
#                one long shell output added, since the corpus rollout is one Codex refuses)
#   pi           pi's SessionManager and convertToLlm (pi-context.mjs) on the pi corpus session
#   gemini       Gemini CLI's loadConversationRecord (gemini-history.mjs) on the Gemini corpus
#                session with its one tool output made long
#   kimi-cli     kimi-cli's Context.restore (kimi_context.py) on a kimi corpus session
#
# It needs the agents installed by .ci/install-agents and the loader scripts of tests/agents/
# (the real-agents suite). Knobs: AGENTS=dir of node_modules (default target/agents),
# SCRIPTS=dir of the loaders (default tests/agents), KIMI_PYTHON, CONDENSE.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
AGENTS=${AGENTS:-$root/target/agents}
# The loaders find the agents here.
export CONDENSE_AGENTS_DIR=$AGENTS
SCRIPTS=${SCRIPTS:-$root/tests/agents}
KIMI_PYTHON=${KIMI_PYTHON:-$root/target/kimi-venv/bin/python}
FIXTURES=${FIXTURES:-$root/fixtures/agents}
if [ -z "${CONDENSE:-}" ]; then
  cargo build --quiet
  CONDENSE=$root/target/debug/condense
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
PROMPT="CONDENSE-RESUME-PROMPT: carry on"
fail=0
ok() { echo "ok    $1: $2"; }
bad() { echo "FAIL  $1: $2"; fail=1; }

# prune ARGS... FILE OUT: prune that must change something.
prune() {
  local out=${*: -1} n=$(($# - 1))
  "$CONDENSE" prune "${@:1:$n}" > "$out"
}

# The last recorded POST to PATH-SUFFIX whose body holds the prompt, as JSON.
request() { # RECORD-DIR SUFFIX
  for f in "$1"/*.json; do
    jq -c --arg s "$2" --arg p "$PROMPT" \
      'select(.method=="POST" and (.path|contains($s))) | .body | select(tostring|contains($p))' "$f"
  done | tail -1
}

claude() {
  local session=fixtures/corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl dir=$work/claude
  mkdir -p "$dir/project"
  local id slug
  id=$(jq -r '.sessionId // empty' "$session" | head -1)
  slug=$(echo "$dir/project" | sed 's/[^A-Za-z0-9]/-/g')
  mkdir -p "$dir/home/.claude/projects/$slug"
  prune --keep-thinking 1 --clear-inputs "$session" "$dir/home/.claude/projects/$slug/$id.jsonl"
  (cd "$dir/project" && env -i PATH="$PATH" HOME="$dir/home" "$SCRIPTS/isolated.sh" "$dir/record" 120 \
    sh -c 'ANTHROPIC_BASE_URL=http://127.0.0.1:$MOCK_PORT ANTHROPIC_API_KEY=sk-ant-test CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 exec "$1" -p --resume "$2" "$3" </dev/null' \
    sh "$AGENTS/node_modules/.bin/claude" "$id" "$PROMPT" > "$dir/out.txt" 2>&1) || { bad claude-code "resume failed: $(tail -1 "$dir/out.txt")"; return; }
  local body
  body=$(request "$dir/record" /v1/messages)
  [ -n "$body" ] || { bad claude-code "no request with the prompt"; return; }
  # Every tool_result answers the tool_use of the message just before it.
  local orphans placeholders thinking
  orphans=$(echo "$body" | jq '[.messages as $m | range(1; $m|length) as $i | ($m[$i].content | if type=="array" then .[] else empty end | select(.type=="tool_result") | .tool_use_id) as $r | select([$m[$i-1].content | if type=="array" then .[] else empty end | select(.type=="tool_use") | .id] | index($r) | not)] | length')
  placeholders=$(echo "$body" | grep -o 'condense pruned' | wc -l)
  thinking=$(echo "$body" | jq '[.messages[].content | if type=="array" then .[] else empty end | select(.type=="thinking")] | length')
  if [ "$orphans" = 0 ] && [ "$placeholders" -gt 0 ] && [ "$thinking" = 1 ]; then
    ok claude-code "resumed; $(echo "$body" | jq '.messages|length') messages sent, $placeholders placeholders, 0 unpaired tool_result, 1 thinking block (the newest)"
  else
    bad claude-code "orphans=$orphans placeholders=$placeholders thinking=$thinking"
  fi
}

codex() {
  local base=$FIXTURES/codex-turns.jsonl dir=$work/codex
  [ -f "$base" ] || { bad codex "$base is missing"; return; }
  mkdir -p "$dir/project"
  local long
  long=$(python3 -c 'import json; print(json.dumps("".join(f"line {i} of a long tool output\n" for i in range(80))))')
  { sed -n 1,16p "$base"
    echo '{"timestamp":"2026-12-01T08:38:34.180Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_prune1"}}'
    echo "{\"timestamp\":\"2026-12-01T08:38:34.181Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"call_prune1\",\"output\":$long}}"
    sed -n '17,$p' "$base"; } > "$dir/with-tool.jsonl"
  local id stamp home folder
  id=$(head -1 "$base" | jq -r .payload.id)
  stamp=$(head -1 "$base" | jq -r .payload.timestamp)
  home=$dir/home
  folder=$home/.codex/sessions/$(echo "${stamp:0:10}" | tr - /)
  mkdir -p "$folder"
  prune --keep 0 "$dir/with-tool.jsonl" "$folder/rollout-$(echo "${stamp:0:19}" | tr : -)-$id.jsonl"
  printf 'openai_base_url = "http://127.0.0.1:@PORT@/v1"\ncheck_for_update_on_startup = false\n[analytics]\nenabled = false\n' > "$home/.codex/config.in"
  (cd "$dir/project" && env -i PATH="$PATH" HOME="$home" CODEX_HOME="$home/.codex" "$SCRIPTS/isolated.sh" "$dir/record" 120 \
    sh -c 'sed "s/@PORT@/$MOCK_PORT/" "$CODEX_HOME/config.in" >"$CODEX_HOME/config.toml" && OPENAI_API_KEY=sk-test exec "$1" exec --skip-git-repo-check resume "$2" "$3" </dev/null' \
    sh "$AGENTS/node_modules/.bin/codex" "$id" "$PROMPT" > "$dir/out.txt" 2>&1) || { bad codex "resume failed: $(grep -m1 -i error "$dir/out.txt")"; return; }
  local body
  body=$(request "$dir/record" /responses)
  [ -n "$body" ] || { bad codex "no request with the prompt"; return; }
  if echo "$body" | jq -e '[.input[] | select(.call_id=="call_prune1") | .type] == ["function_call","function_call_output"]' >/dev/null &&
     echo "$body" | jq -e '[.input[] | select(.type=="function_call_output") | .output | tostring | startswith("[condense pruned")] | all' >/dev/null; then
    ok codex "resumed; the request pairs function_call and its pruned function_call_output"
  else
    bad codex "the request lost the pair or the placeholder"
  fi
}

pi() {
  local dir=$work/pi
  mkdir -p "$dir"
  prune --clear-inputs fixtures/corpus/pi/pi-mono-large-session.jsonl "$dir/pruned.jsonl"
  local before after
  before=$(node "$SCRIPTS/pi-context.mjs" fixtures/corpus/pi/pi-mono-large-session.jsonl | jq -c '[(.messages|length), .estimatedTokens]')
  after=$(node "$SCRIPTS/pi-context.mjs" "$dir/pruned.jsonl" | jq -c '[(.messages|length), .estimatedTokens, ([.messages[] | select(.text|startswith("[condense pruned"))] | length)]')
  if [ "$(echo "$before" | jq '.[0]')" = "$(echo "$after" | jq '.[0]')" ]; then
    ok pi "loaded; [messages, pi's own estimate] $before before, $after after (last: placeholders)"
  else
    bad pi "messages changed: $before -> $after"
  fi
}

gemini() {
  local dir=$work/gemini long
  mkdir -p "$dir"
  long=$(python3 -c 'print("".join(f"line {i} of a long tool output\n" for i in range(60)))')
  jq -c --arg long "$long" 'if .toolCalls then .toolCalls |= map(.result |= (if . then map(.functionResponse.response = {output: $long}) else . end)) else . end' \
    fixtures/corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl > "$dir/long.jsonl"
  prune --keep 0 "$dir/long.jsonl" "$dir/pruned.jsonl"
  local history
  history=$(node "$SCRIPTS/gemini-history.mjs" "$dir/pruned.jsonl")
  if echo "$history" | jq -e '[.history[] | select(.text|contains("condense pruned"))] | length == 1' >/dev/null; then
    ok gemini "loaded; $(echo "$history" | jq '.history|length') history entries, the function response holds the placeholder"
  else
    bad gemini "$history"
  fi
}

kimi() {
  local dir=$work/kimi session=fixtures/corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl
  mkdir -p "$dir"
  prune --clear-inputs "$session" "$dir/pruned.jsonl"
  local before after
  before=$("$KIMI_PYTHON" "$SCRIPTS/kimi_context.py" "$session" | jq -c '[(.messages|length), .token_count, .rejected]')
  after=$("$KIMI_PYTHON" "$SCRIPTS/kimi_context.py" "$dir/pruned.jsonl" | jq -c '[(.messages|length), .token_count, .rejected]')
  if [ "$(echo "$before" | jq '.[0]')" = "$(echo "$after" | jq '.[0]')" ] && [ "$(echo "$after" | jq '.[2]')" = 0 ]; then
    ok kimi-cli "restored; [messages, token count, rejected] $before before, $after after"
  else
    bad kimi-cli "$before -> $after"
  fi
}

for agent in "${@:-claude codex pi gemini kimi}"; do
  for one in $agent; do "$one"; done
done
exit "$fail"
