# Sourced inside tests/agents/isolated.sh (MOCK_PORT set): points opencode at mock_api.py with
# no account. A custom provider on the bundled @ai-sdk/openai-compatible package (nothing is
# installed at run time) speaks the Chat Completions API to 127.0.0.1; the model's context limit
# is set so a test can make opencode compact by itself (OPENCODE_CONTEXT, default 200000; the
# mock's --input-tokens is what each reply reports as used) and how much its compaction keeps
# verbatim (OPENCODE_PRESERVE tokens, default opencode's own cap of 15000). The environment switches stop the
# calls opencode makes on its own (models.dev catalogue, default plugins from npm, LSP
# downloads, self-update). HOME (set by the caller) holds the database:
# $HOME/.local/share/opencode/opencode.db.
OPENCODE_CONFIG_CONTENT=$(cat <<JSON
{"\$schema": "https://opencode.ai/config.json",
 "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
   "options": {"baseURL": "http://127.0.0.1:$MOCK_PORT/v1", "apiKey": "dummy"},
   "models": {"mock-model": {"name": "Mock", "limit": {"context": ${OPENCODE_CONTEXT:-200000}, "output": 4000}}}}},
 "model": "mock/mock-model", "small_model": "mock/mock-model",
 "compaction": {"preserve_recent_tokens": ${OPENCODE_PRESERVE:-15000}},
 "autoupdate": false, "share": "disabled"}
JSON
)
export OPENCODE_CONFIG_CONTENT
export OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
  OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_AUTOUPDATE=1
# opencode installs @opencode-ai/plugin into each config folder in the background (Config's
# loadInstanceState → Npm.install) and waits for it before exiting; with no registry that
# takes minutes of retries. Npm.install does nothing when node_modules exists and the
# package-lock.json lists every dependency of package.json, so an empty install is declared.
config_dir="$HOME/.config/opencode"
mkdir -p "$config_dir/node_modules"
echo '{"dependencies": {"@opencode-ai/plugin": "*"}}' >"$config_dir/package.json"
echo '{"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}' >"$config_dir/package-lock.json"
