/**
 * Dotted paths into a task (`metadata.subject`), checked where they are
 * given: by `--group-by`, `--stderr-cluster`, and scorers that read the task.
 * The public names are `Labels.TASK_FIELDS` and `Labels.parsePath`.
 */
import { Result } from "effect"

/**
 * The first segment of a path into a task: one of the task's fields.
 *
 * @category constants
 * @since 0.1.0
 */
export const TASK_FIELDS: ReadonlyArray<string> = ["id", "inputs", "intent", "reference", "metadata"]

/**
 * A dotted path into a task, checked: segments are non-empty and the first is
 * one of {@link TASK_FIELDS}. The failure words what is expected.
 *
 * **Example** (A path and a refused one)
 *
 * ```ts
 * import { Labels } from "agent-trials"
 *
 * Labels.parsePath("metadata.subject") // Result.succeed("metadata.subject")
 * Labels.parsePath("subject") // Result.fail("Expected a dotted path into the task starting with id, inputs, ...")
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const parsePath = (text: string): Result.Result<string, string> => {
  const segments = text.split(".")
  if (text.trim() !== text || segments.some((s) => s === "")) {
    return Result.fail(`Expected a dotted path into the task like metadata.subject, got ${JSON.stringify(text)}`)
  }
  if (!TASK_FIELDS.includes(segments[0])) {
    return Result.fail(
      `Expected a dotted path into the task starting with ${TASK_FIELDS.join(", ")} (like metadata.${segments.join(".")}), ` +
        `got ${JSON.stringify(text)}`
    )
  }
  return Result.succeed(text)
}
