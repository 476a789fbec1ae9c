/**
 * Where tasks come from: a JSONL, JSON, CSV, TSV or Parquet file (or stdin)
 * read lazily, a Hugging Face Hub dataset, or generated synthetic tasks,
 * and the rows a run chooses of them (`choose`). Each is a `Stream` of
 * items (`tasks` gives `runTrials` their tasks), with or without the CLI.
 * Bad rows are reported with the file and where in it; with
 * `onInvalid: "skip"` they flow on as `Invalid` items, which the run records
 * as failed trials of type `InvalidTask`.
 *
 * @since 0.1.0
 */
import { Result, Stream } from "effect"
import type { AgentEvalTask } from "../domain/Trial.ts"
import { sourceChunkSize } from "../internal/limits.ts"
import type { Item } from "./Source.ts"

export { choose, readIds, type Selection } from "./Choose.ts"
export { fromDelimited } from "./Csv.ts"
export { fromHub } from "./HuggingFace.ts"
export { fromJson } from "./Json.ts"
export { countLines, fromJsonl } from "./Jsonl.ts"
export { fromParquet } from "./Parquet.ts"
export { DatasetError, type Item, type OnInvalid, type Services, type SourceRead } from "./Source.ts"

/**
 * `n` generated tasks `synthetic-0` ... with an instruction and a reference
 * answer, made on demand.
 *
 * @category sources
 * @since 0.1.0
 */
export const synthetic = (n: number): Stream.Stream<Item> =>
  Stream.fromIterable({
    *[Symbol.iterator]() {
      for (let i = 0; i < n; i++) {
        yield {
          _tag: "Task" as const,
          task: {
            id: `synthetic-${i}`,
            inputs: { instruction: `What is ${i} + ${i}?` },
            reference: String(i + i)
          }
        }
      }
    }
  }, { chunkSize: sourceChunkSize })

/**
 * The tasks of a stream of items, for `runTrials`: `Invalid` items (read
 * with `onInvalid: "skip"`) are left out.
 *
 * **Example** (A CSV file through the runner, without the CLI)
 *
 * ```ts
 * import { Dataset, DatasetFormats, Runner } from "agent-trials"
 * import { Effect } from "effect"
 *
 * const agent = (task: { readonly id: string }) => Effect.succeed({ output_text: task.id })
 * const tasks = Dataset.tasks(DatasetFormats.read("questions.csv", { onInvalid: "fail" }))
 * export const trials = Runner.runTrials(tasks, agent, { parallelism: 8 })
 * ```
 *
 * @category sources
 * @since 0.3.0
 */
export const tasks = <E, R>(items: Stream.Stream<Item, E, R>): Stream.Stream<AgentEvalTask, E, R> =>
  Stream.filterMap(items, (item) => item._tag === "Task" ? Result.succeed(item.task) : Result.failVoid)
