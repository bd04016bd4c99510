# Sourced inside tests/agents/isolated.sh (MOCK_PORT set): points Qwen Code at mock_api.py with
# no account, through its OpenAI-compatible auth (OPENAI_API_KEY, OPENAI_BASE_URL,
# OPENAI_MODEL; settings.json selects the "openai" auth type), so it speaks the Chat
# Completions API to 127.0.0.1. Managed auto-memory is off (it sends a second model request
# after every turn); usage statistics are off. Qwen Code 0.24 needs Node.js >= 22: the
# pinned `node` package of .ci/install-agents (target/node22) goes first on PATH. HOME (set by
# the caller) holds ~/.qwen/settings.json and the sessions, ~/.qwen/projects/<cwd with every
# non-alphanumeric character made '-'>/chats/<session id>.jsonl.
mkdir -p "$HOME/.qwen"
cat >"$HOME/.qwen/settings.json" <<JSON
{"security": {"auth": {"selectedType": "openai"}},
 "model": {"name": "mock-model"},
 "memory": {"enableManagedAutoMemory": false},
 "privacy": {"usageStatisticsEnabled": false}}
JSON
export OPENAI_API_KEY=dummy OPENAI_BASE_URL="http://127.0.0.1:$MOCK_PORT/v1" OPENAI_MODEL=mock-model
export PATH="$QWEN_NODE_BIN:$PATH"
