/**
 * The registry of results stores: `--out` is kept by the first store that
 * claims it, the JSONL file (the last) taking any. A new store is its file
 * (a `ResultsStore`) and one entry in `builtIn`, before the JSONL one.
 *
 * @since 0.3.0
 */
import * as JsonlStore from "./JsonlStore.ts"
import type { ResultsStore } from "./Store.ts"

export type { PrepareOptions, ResultsStore } from "./Store.ts"

/**
 * The stores of this package.
 *
 * @category registry
 * @since 0.3.0
 */
export const builtIn: ReadonlyArray<ResultsStore> = [JsonlStore.store]

/**
 * The store of `out`: the first of `stores` that claims it, else the JSONL file.
 *
 * @category registry
 * @since 0.3.0
 */
export const storeOf = (out: string, stores: ReadonlyArray<ResultsStore> = builtIn): ResultsStore =>
  stores.find((s) => s.matches(out)) ?? JsonlStore.store

/**
 * The README's table of results stores.
 *
 * @category docs
 * @since 0.3.0
 */
export const docsTable = (stores: ReadonlyArray<ResultsStore> = builtIn): string =>
  ["| store | What it keeps |", "| --- | --- |", ...stores.map((s) => `| \`${s.name}\` | ${s.doc} |`)].join("\n")
