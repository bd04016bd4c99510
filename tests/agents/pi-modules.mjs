//! Finds pi's own session and compaction modules in the pinned install (target/agents, or
//! $CONDENSE_AGENTS_DIR), so the loader and the fixture generator run pi's code, not a copy.
//!
//! The modules are imported by file URL: the package's `exports` map only exposes its index,
//! which pulls in the whole terminal UI; the session code needs none of it.

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const agents = process.env.CONDENSE_AGENTS_DIR ?? resolve(here, "../../target/agents");
const pi = join(agents, "node_modules/@mariozechner/pi-coding-agent/dist/core");

if (!existsSync(pi)) {
  console.error(`pi is not installed at ${pi} (run .ci/install-agents)`);
  process.exit(3);
}

const load = (path) => import(pathToFileURL(join(pi, path)).href);

/** pi's session-manager.js: SessionManager, buildSessionContext. */
export const sessions = await load("session-manager.js");
/** pi's messages.js: convertToLlm, the summary prefixes. */
export const messages = await load("messages.js");
/** pi's compaction/compaction.js: prepareCompaction, estimateContextTokens. */
export const compaction = await load("compaction/compaction.js");
