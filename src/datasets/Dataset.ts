/**
 * Where tasks come from: a JSONL file (or stdin) read lazily, line by line, or
 * generated synthetic tasks. Bad lines are reported with file, line and field;
 * with `onInvalid: "skip"` they flow on as `Invalid` items, which the run
 * records as failed trials of type `InvalidTask`.
 *
 * @since 0.1.0
 */
import { Stream } from "effect"
import { sourceChunkSize } from "../internal/limits.ts"
import type { Item } from "./Source.ts"

export { countLines, fromJsonl } from "./Jsonl.ts"
export { DatasetError, type Item, type OnInvalid, type Services } from "./Source.ts"

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
