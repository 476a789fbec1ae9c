/**
 * The JSONL results store: one `AgentEvalTrial` per line, appended as
 * trials finish (`Results.prepare`, `Results.writer`), read back by
 * `Read.numberedTrialsOf`.
 *
 * @since 0.3.0
 */
import * as Read from "./Read.ts"
import * as Results from "./Results.ts"
import type { ResultsStore } from "./Store.ts"

/**
 * The store.
 *
 * @category stores
 * @since 0.3.0
 */
export const store: ResultsStore = {
  name: "jsonl",
  doc: "A JSONL file, one trial record a line, appended as trials finish (`-` writes stdout)",
  matches: () => true,
  prepare: Results.prepare,
  writer: (out, options) => Results.writer(out, options),
  read: Read.numberedTrialsOf
}
