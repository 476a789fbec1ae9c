/**
 * The `repro` command.
 *
 * @since 0.1.0
 */
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { BoundsViolated, reportErrors, UsageError } from "./errors.ts"

/**
 * `repro [--tasks N] [--parallelism N] [--json]`.
 *
 * @category commands
 * @since 0.1.0
 */
export const reproCommand = Command.make(
  "repro",
  {
    tasks: Flag.Int("tasks").pipe(
      Flag.withDescription("Number of controlled tasks to run through each runner"),
      Flag.withDefault(512)
    ),
    parallelism: Flag.Int("parallelism").pipe(
      Flag.withDescription("Configured parallelism (an integer >= 1)"),
      Flag.withDefault(8)
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print one JSON object instead of text"),
      Flag.withDefault(false)
    )
  },
  Effect.fn("Cli.repro")(function*({ json, parallelism, tasks }) {
    if (!Number.isSafeInteger(tasks) || tasks < 0) {
      return yield* new UsageError({ message: `--tasks must be an integer >= 0, got ${tasks}` })
    }
    // Loaded by the command that uses it: other commands start without it.
    const { formatReport, reproduce } = yield* Effect.promise(() => import("../programs/Repro.ts"))
    const report = yield* reproduce({ tasks, parallelism }).pipe(
      Effect.mapError((e) => new UsageError({ message: e.message.replace("parallelism", "--parallelism") }))
    )
    yield* Console.log(json ? JSON.stringify(report, null, 2) : formatReport(report))
    if (!report.bounds_held) {
      return yield* new BoundsViolated({
        message: "the bounded runner exceeded its bounds or left tasks incomplete",
        tasks: report.input_tasks,
        parallelism: report.parallelism,
        bounded: report.runners.bounded
      })
    }
  }, reportErrors)
).pipe(Command.withDescription(
  "Reproduce the eager-admission bug: run the original shape and agent-trials side by side on a gated local agent"
))
