//! Prints, as one JSON object, the history Gemini CLI itself would send after resuming a JSONL
//! session file: gemini-cli-core's loadConversationRecord reads the records (applying `$set`
//! and `$rewindTo`), and convertSessionToClientHistory turns them into the Content list the
//! chat is restarted with (packages/core/src/services/chatRecordingService.ts and
//! packages/core/src/utils/sessionUtils.ts upstream). Usage: node gemini-history.mjs SESSION
//!
//! The CLI ships as a bundle whose chunk names are content hashes, so the module is found by
//! what it exports, not by name.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const agents = process.env.CONDENSE_AGENTS_DIR ?? resolve(here, "../../target/agents");
const bundle = join(agents, "node_modules/@google/gemini-cli/bundle");
if (!existsSync(bundle)) {
  console.error(`Gemini CLI is not installed at ${bundle} (run .ci/install-agents)`);
  process.exit(3);
}
const core = readdirSync(bundle)
  .filter((name) => /^core-[A-Z0-9]+\.js$/.test(name))
  .find((name) => readFileSync(join(bundle, name), "utf8").includes("loadConversationRecord"));
if (!core) {
  console.error(`no gemini-cli-core module exporting loadConversationRecord in ${bundle}`);
  process.exit(3);
}
const { loadConversationRecord, convertSessionToClientHistory } = await import(
  pathToFileURL(join(bundle, core)).href
);

const textOf = (parts) =>
  (parts ?? [])
    .map((part) => {
      if (typeof part.text === "string") return part.text;
      if (part.functionCall) return `${part.functionCall.name} ${JSON.stringify(part.functionCall.args)}`;
      if (part.functionResponse) return JSON.stringify(part.functionResponse.response);
      return "";
    })
    .join("\n");

const source = process.argv[2];
if (!source) {
  console.error("usage: node gemini-history.mjs SESSION.jsonl");
  process.exit(2);
}
const conversation = await loadConversationRecord(source);
if (!conversation) {
  console.error(`${source}: Gemini CLI could not load this session`);
  process.exit(1);
}
const history = convertSessionToClientHistory(conversation.messages).map((item) => item.content ?? item);
const report = {
  sessionId: conversation.sessionId ?? null,
  records: conversation.messages.length,
  history: history.map((content) => ({ role: content.role, text: textOf(content.parts) })),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
