/**
 * What a results file's run recorded, for the commands that read the file
 * later (`score`, `report`, `compare`): its definition (`RESULTS.run.json`),
 * and its tasks. `--tasks FILE` is read with `--format`, `--map` and
 * `--json-path` as `run` reads it (an `hf:` one under `--hub-timeout` and
 * `--max-download`); a flag not given takes what the run
 * recorded when FILE is the run's own tasks file. Without `--tasks`, the
 * tasks the definition names are read as the run read them: its tasks
 * file (bad lines skipped: the run recorded them), its Hub dataset, or its
 * synthetic tasks. A tasks file that is no longer there is a warning, not
 * an error: the trials are still there.
 *
 * @since 0.4.0
 */
import { Effect, FileSystem, Path, Result, Schema, Stream } from "effect"
import * as Dataset from "../datasets/Dataset.ts"
import * as DatasetFormats from "../datasets/DatasetFormats.ts"
import * as Mapping from "../datasets/Mapping.ts"
import type * as Source from "../datasets/Source.ts"
import { redactText } from "../internal/redact.ts"
import { Registry } from "./internal/kinds.ts"
import * as RunDefinition from "./run/Definition.ts"

const decode = Schema.decodeUnknownExit(Schema.fromJsonString(RunDefinition.RunDefinition))

/**
 * The definition recorded beside `results`: undefined when there is none,
 * or it cannot be read or decoded (a file written by `score`, or copied
 * without it).
 *
 * @category sources
 * @since 0.4.0
 */
export const definitionOf = (
  results: string
): Effect.Effect<RunDefinition.RunDefinition | undefined, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.option(fs.readFileString(RunDefinition.pathOf(results)))
    if (text._tag === "None") return undefined
    const recorded = decode(text.value)
    return recorded._tag === "Success" ? recorded.value : undefined
  })

/**
 * The tasks cannot be read as asked (exit code 2). `kind` says why:
 * `unread`, the dataset `flags` given have no tasks to read (`problem`
 * says why); `mapping`, the run definition `file` has a `field` whose
 * mapping does not parse (`problem`); `unmatched`, none of the `tasks`
 * (their first `task_ids`, read with `how`) is the task of a trial in
 * `results` (their first `trial_task_ids`).
 *
 * @category errors
 * @since 0.4.0
 */
export class TasksError extends Schema.TaggedError<TasksError>()("TasksError", {
  kind: Schema.Literals(["unread", "mapping", "unmatched"]),
  flags: Schema.optionalKey(Schema.Array(Schema.String)),
  file: Schema.optionalKey(Schema.String),
  field: Schema.optionalKey(Schema.String),
  problem: Schema.optionalKey(Schema.String),
  tasks: Schema.optionalKey(Schema.String),
  task_ids: Schema.optionalKey(Schema.Array(Schema.String)),
  how: Schema.optionalKey(Schema.String),
  results: Schema.optionalKey(Schema.String),
  trial_task_ids: Schema.optionalKey(Schema.Array(Schema.String))
}) {
  override get message(): string {
    switch (this.kind) {
      case "unread":
        return `${(this.flags ?? []).join(", ")}: ${this.problem}: give --tasks FILE`
      case "mapping":
        return `${this.file}: field ${this.field}: ${this.problem}: give --map`
      case "unmatched":
        return `${this.tasks}: none of its task ids (${preview(this.task_ids ?? [])}) is the task_id of a trial in ${this.results} ` +
          `(${preview(this.trial_task_ids ?? [])})${this.how === undefined || this.how === "" ? "" : `, read with ${this.how}`}: ` +
          `give the run's own task file, and --map id=COLUMN where the id is another column`
    }
  }
}

/**
 * What `tasksOf` reads from: the results file, `--tasks` and the dataset
 * flags, as `run` has them.
 *
 * @category models
 * @since 0.4.0
 */
export interface TasksInput extends TasksRead {
  readonly results: string
  readonly tasks: string | undefined
  readonly cwd: string
}

/**
 * How `score` and `report` read a task file, as `run` reads it: one
 * definition of the dataset options their configs share.
 *
 * @category models
 * @since 0.6.0
 */
export interface TasksRead extends Source.DatasetFlags {
  /** `--format`: the format the tasks are read as; by the file's name when undefined. */
  readonly format?: string | undefined
  /** The formats the task file's format is chosen from; the `Kinds.Registry` service's when undefined. */
  readonly datasets?: ReadonlyArray<DatasetFormats.DatasetFormat> | undefined
}

/**
 * The tasks chosen, and how messages name them.
 *
 * @category models
 * @since 0.4.0
 */
export interface Tasks {
  /** `--tasks FILE`, or `FILE (the tasks RESULTS.run.json names)`. */
  readonly name: string
  /** How they are read, as flags (`--format csv --map id=qid`); "" for synthetic tasks. */
  readonly how: string
  readonly items: Stream.Stream<Dataset.Item, Dataset.DatasetError, Dataset.Services>
}

/**
 * The tasks of `input.results` (see the module doc), undefined when there
 * are none to read; `warning` says why when the run named some.
 *
 * @category sources
 * @since 0.4.0
 */
export const tasksOf = Effect.fn("Recorded.tasksOf")(function*(given: TasksInput) {
  const input = { ...given, datasets: given.datasets ?? (yield* Registry).datasets }
  const path = yield* Path.Path
  const fs = yield* FileSystem.FileSystem
  const flags = [
    ...(input.format === undefined ? [] : ["--format"]),
    ...(input.map === undefined ? [] : ["--map"]),
    ...(input.jsonPath === undefined ? [] : ["--json-path"])
  ]
  const definition = yield* definitionOf(input.results)
  const source = definition?.dataset
  const file = RunDefinition.pathOf(input.results)
  const none = (warning?: string) => ({ tasks: undefined, warning })
  if (input.tasks !== undefined) {
    const own = source !== undefined &&
      (("tasks" in source && path.resolve(input.cwd, input.tasks) === source.tasks) ||
        ("hf" in source && input.tasks === source.hf))
    return { tasks: yield* read(input, input.tasks, `--tasks ${input.tasks}`, own ? definition?.read : undefined, "fail"), warning: undefined }
  }
  const unread = (why: string) =>
    flags.length === 0 ? Effect.succeed(none()) : Effect.fail(new TasksError({ kind: "unread", flags, problem: why }))
  if (source === undefined) return yield* unread(`no tasks to read (${input.results} has no run definition beside it naming them)`)
  if ("synthetic" in source) {
    if (flags.length > 0) return yield* unread(`the run of ${input.results} read synthetic tasks, not a file`)
    const tasks: Tasks = { name: `the run's ${source.synthetic} synthetic tasks`, how: "", items: Dataset.synthetic(source.synthetic) }
    return { tasks, warning: undefined }
  }
  if ("stdin" in source) {
    if (flags.length > 0) return yield* unread(`the run of ${input.results} read its tasks from stdin`)
    return none(`the run of ${input.results} read its tasks from stdin: give --tasks FILE to read them again`)
  }
  const named = "hf" in source ? source.hf : source.tasks
  if ("tasks" in source && !(yield* fs.exists(source.tasks).pipe(Effect.orElseSucceed(() => false)))) {
    return none(`${file} names the tasks ${source.tasks}, which is not there (moved?): give --tasks FILE`)
  }
  return { tasks: yield* read(input, named, `${named} (the tasks ${file} names)`, definition?.read, "skip"), warning: undefined }
})

// The items of `file`, each dataset flag as given, else as the run recorded it.
const read = (
  input: TasksInput,
  file: string,
  name: string,
  recorded: RunDefinition.RunDefinition["read"],
  onInvalid: Dataset.OnInvalid
): Effect.Effect<Tasks, TasksError> =>
  Effect.gen(function*() {
    let map = input.map
    if (map === undefined && recorded !== undefined && recorded.map !== null) {
      const parsed = Mapping.parse(recorded.map)
      if (Result.isFailure(parsed)) {
        return yield* new TasksError({
          kind: "mapping",
          file: RunDefinition.pathOf(input.results),
          field: "read.map",
          problem: parsed.failure
        })
      }
      map = parsed.success
    }
    const format = input.format ?? recorded?.format
    const jsonPath = input.jsonPath ?? recorded?.json_path ?? undefined
    const how = [
      ...(format === undefined ? [] : [`--format ${format}`]),
      ...(map === undefined ? [] : [`--map ${Mapping.recorded(map)}`]),
      ...(jsonPath === undefined ? [] : [`--json-path ${jsonPath}`])
    ].join(" ")
    return {
      name,
      how,
      items: DatasetFormats.read(
        file,
        { onInvalid, format, map, jsonPath, cacheDir: input.cacheDir, hubTimeout: input.hubTimeout, maxDownload: input.maxDownload },
        input.datasets
      )
    }
  })

const preview = (ids: ReadonlyArray<string>) =>
  ids.length === 0 ? "none" : ids.slice(0, 3).map((id) => redactText(JSON.stringify(id).slice(0, 80))).join(", ") +
    (ids.length > 3 ? ", ..." : "")

/**
 * Fails when none of `trials` (the task ids of the records of `results`) is
 * one of `ids` (the ids of `tasks`): such a task file joins nothing, a wrong
 * file or a wrong `--map id=`. The first match ends the look; no records,
 * nothing to join.
 *
 * @category checks
 * @since 0.4.0
 */
export const someMatch = <E, R>(input: {
  readonly tasks: Tasks
  readonly ids: ReadonlySet<string> | ReadonlyMap<string, unknown>
  readonly results: string
  readonly trials: Stream.Stream<string, E, R>
}): Effect.Effect<void, TasksError | E, R> =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const hit = yield* input.trials.pipe(
      Stream.tap((id) => Effect.sync(() => seen.length < 4 && !seen.includes(id) && seen.push(id))),
      Stream.filter((id) => input.ids.has(id)),
      Stream.runHead
    )
    if (hit._tag === "Some" || seen.length === 0) return
    const taskIds: Array<string> = []
    for (const id of input.ids.keys()) if (taskIds.push(id) >= 4) break
    return yield* new TasksError({
      kind: "unmatched",
      tasks: input.tasks.name,
      task_ids: taskIds,
      how: input.tasks.how,
      results: input.results,
      trial_task_ids: seen
    })
  })
