//! Prints, as one JSON object, the context pi itself would send for a session file: pi's
//! SessionManager opens it (migrating old versions the way `pi --session` does), builds the
//! context along the active branch from the leaf pi picks, and convertToLlm turns it into the
//! messages that go to the model. Usage: node pi-context.mjs SESSION.jsonl
//!
//! The file is opened from a private copy: opening an old-version session makes pi rewrite it.

import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { compaction, messages as piMessages, sessions } from "./pi-modules.mjs";

/** Every piece of text a message carries, the way a test searches for it. */
function textOf(message) {
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return "";
  return message.content
    .map((part) => {
      switch (part.type) {
        case "text":
          return part.text;
        case "thinking":
          return part.thinking;
        case "toolCall":
          return `${part.name} ${JSON.stringify(part.arguments)}`;
        default:
          return "";
      }
    })
    .join("\n");
}

const source = process.argv[2];
if (!source) {
  console.error("usage: node pi-context.mjs SESSION.jsonl");
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "pi-context-"));
try {
  const copy = join(dir, "session.jsonl");
  copyFileSync(source, copy);
  const manager = sessions.SessionManager.open(copy, dir);
  const context = manager.buildSessionContext();
  const llm = piMessages.convertToLlm(context.messages);
  const branch = manager.getBranch();
  const active = [...branch].reverse().find((entry) => entry.type === "compaction");
  const report = {
    version: manager.getHeader()?.version ?? null,
    entries: manager.getEntries().length,
    leafId: manager.getLeafId(),
    branchIds: branch.map((entry) => entry.id),
    compaction: active
      ? { id: active.id, summary: active.summary, firstKeptEntryId: active.firstKeptEntryId }
      : null,
    // pi's own figure: the last assistant usage plus an estimate of what follows it.
    tokens: compaction.estimateContextTokens(context.messages).tokens,
    // pi's per-message estimate summed over the whole context, free of recorded usage.
    estimatedTokens: context.messages.reduce((sum, m) => sum + compaction.estimateTokens(m), 0),
    agentRoles: context.messages.map((message) => message.role),
    messages: llm.map((message) => ({ role: message.role, text: textOf(message) })),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
