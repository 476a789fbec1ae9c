/**
 * What defines a run, written beside its results (`RESULTS.jsonl.run.json`)
 * when a fresh run starts, so that `--resume` continues that run and not
 * another: the agent, the scorers, the epochs, the dataset and the rows
 * chosen. Resuming with a different definition is refused, naming what
 * differs; what only changes how trials are run (parallelism, timeout,
 * retries, backoff, rate, failure budget) may differ.
 *
 * @since 0.1.0
 */
import { Clock, Console, Effect, FileSystem, Path, Schema } from "effect"
import * as AgentKinds from "../../agents/AgentKinds.ts"
import * as ToolSources from "../../agents/tools/Sources.ts"
import type * as Users from "../../agents/users/Users.ts"
import { writeFileAtomic } from "../../internal/atomicFile.ts"
import * as Choose from "../../datasets/Choose.ts"
import * as Labels from "../../summary/Labels.ts"
import * as ScorerKinds from "../../scoring/ScorerKinds.ts"
import * as ScorerSpec from "../../scoring/Spec.ts"
import { worldOf, type WorldInput } from "./internal/world.ts"
import { changedModules, differences, fingerprint, JSONL_AS_IS, modulesOf, same, shortSha, sourceOf } from "./internal/definition.ts"
import { UserRecorded, userOf } from "./internal/definition.ts"
import * as Request from "../../domain/Request.ts"


/**
 * Where the run's tasks come from.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Source = Schema.Union([
  Schema.Struct({ synthetic: Schema.Number }),
  Schema.Struct({ stdin: Schema.Literal(true) }),
  /** A Hugging Face Hub dataset, as `--tasks` names it (the revision asked for, not the sha read). */
  Schema.Struct({ hf: Schema.String }),
  Schema.Struct({ tasks: Schema.String, size: Schema.Number, sha256_first_mib: Schema.String })
])
export type Source = typeof Source.Type

/**
 * A file a run reads its definition from (a `module:`, the pricing file):
 * the flag that names it, its real path and its content's sha256.
 *
 * @category schemas
 * @since 0.5.0
 */
export const Fingerprint = Schema.Struct({ flag: Schema.String, path: Schema.String, sha256: Schema.String })
export type Fingerprint = typeof Fingerprint.Type

/**
 * The file's content. Every field but `run_id` and `written_at` is compared
 * on `--resume`; secrets never appear (URLs through `redactUrl`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const RunDefinition = Schema.Struct({
  version: Schema.Literal(1),
  run_id: Schema.optionalKey(Schema.String),
  written_at: Schema.optionalKey(Schema.String),
  /**
   * `sim:fail=F,seed=S` (latency and jitter only shape timing),
   * `module:ABSOLUTE_PATH[#export]`, a redacted `http(s)://` or `openai:` URL,
   * or `cluster:URL` for a `--cluster` run (the workers' agent).
   */
  agent: Schema.String,
  /** `--model`, for `openai:` agents (the only ones that use it). */
  model: Schema.NullOr(Schema.String),
  /** The scorer specs applied (`module:` paths absolute, judge URLs redacted); `[]` scores nothing. */
  scorers: Schema.Array(Schema.String),
  pass: Schema.NullOr(Schema.String),
  /** `--judge-model`, when a `judge:` scorer uses it. */
  judge_model: Schema.NullOr(Schema.String),
  epochs: Schema.Number,
  /**
   * How the standard errors are clustered: `"task"`, the `--stderr-cluster`
   * PATH, or null (not clustered); absent from definitions written before
   * it was recorded (read as the default for their epochs).
   */
  stderr_cluster: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** The `--group-by` PATHs, in order; absent from older definitions (none). */
  group_by: Schema.optionalKey(Schema.Array(Schema.String)),
  dataset: Source,
  /**
   * How the dataset is read: its format, `--map` (null: the default
   * rules) and `--json-path`; absent from definitions written before
   * other formats were read (JSONL, as it is).
   */
  read: Schema.optionalKey(Schema.Struct({
    format: Schema.String,
    map: Schema.NullOr(Schema.String),
    json_path: Schema.NullOr(Schema.String)
  })),
  /** Which rows of the dataset the run takes: `"all"`, or `--ids`, `--sample`, `--shuffle`, `--seed`, `--limit`. */
  rows: Choose.Recorded,
  /** `--pricing` (null: none); absent from older definitions (not compared). Another content is refused. */
  pricing: Schema.optionalKey(Schema.NullOr(Fingerprint)),
  /**
   * The `module:` files of the agent, its tools and the scorers, in that
   * order; absent from older definitions. Another file is refused, a
   * changed content warned of.
   */
  modules: Schema.optionalKey(Schema.Array(Fingerprint)),
  /**
   * The flags that make each trial's world (`--workspace`, `--workspace-from`,
   * `--setup`, `--sandbox`, ...), `[]` without one; absent from older
   * definitions (not compared). Another world is refused.
   */
  world: Schema.optionalKey(Schema.Array(Schema.String)),
  /** The simulated user and its flags (`--user`); absent for a run without one. */
  user: Schema.optionalKey(UserRecorded),
  /**
   * What the agent's model requests carry (`--system "..."`, `--temperature 0`, `--header NAME=<redacted>`,
   * ...), as flags; absent when none is given (and from older definitions).
   */
  request: Schema.optionalKey(Schema.Array(Schema.String)),
  /** The judges' (`--judge-system`, ...), when a `judge:` scorer is used; absent when none is given. */
  judge_request: Schema.optionalKey(Schema.Array(Schema.String))
})
export type RunDefinition = typeof RunDefinition.Type

/**
 * What a run's definition is read from: the run's flags, decoded.
 *
 * @category models
 * @since 0.1.0
 */
export interface Input extends WorldInput {
  readonly agent: AgentKinds.Spec
  /** `--tools`: recorded after the agent (`... --tools SPEC`), as they change what it does. */
  readonly tools?: ReadonlyArray<ToolSources.Spec> | undefined
  /** The kinds `agent` is of (the run's, from the `Kinds.Registry` service). */
  readonly agents: ReadonlyArray<AgentKinds.AgentKind>
  /** The kinds of `scorers` (the run's). */
  readonly scorerKinds: ReadonlyArray<ScorerKinds.ScorerKind>
  readonly model: string | undefined
  /** The scorer specs the run applies (`Run.scoreSpecs`). */
  readonly scorers: ReadonlyArray<string>
  readonly pass?: string | undefined
  readonly judgeModel?: string | undefined
  readonly expectedTools?: string | undefined
  readonly epochs: number
  /** `--stderr-cluster` (null for none); the default for the epochs when undefined. */
  readonly stderrCluster?: string | null | undefined
  readonly groupBy?: ReadonlyArray<string> | undefined
  /** `--tasks` (`-` for stdin), or undefined with `synthetic`. */
  readonly tasks: string | undefined
  /** How `tasks` is read; JSONL as it is when undefined. */
  readonly read?: { readonly format: string; readonly map: string | null; readonly json_path: string | null } | undefined
  /** The rows chosen; all when undefined. */
  readonly rows?: Choose.Recorded | undefined
  readonly synthetic: number
  /** The `--cluster` URL as messages show it, for a run on a cluster. */
  readonly cluster?: string | undefined
  /** `--pricing FILE`. */
  readonly pricing?: string | undefined
  readonly cwd: string
  /** `--user` and its flags (`--user-model`, `--user-instruction`, `--max-user-turns`). */
  readonly user?: Users.Spec | undefined
  readonly userModel?: string | undefined
  readonly userInstruction?: string | undefined
  readonly maxUserTurns?: number | undefined
  /** The agent's request options (`--system`, `--temperature`, ...), its `--system @FILE` read. */
  readonly request?: Request.Options | undefined
  /** The judges' (`--judge-system`, ...). */
  readonly judgeRequest?: Request.Options | undefined
}

/**
 * `--resume` was asked to continue a results file written by another run,
 * or its definition file cannot be read or written.
 *
 * @category errors
 * @since 0.1.0
 */
export class RunDefinitionError extends Schema.TaggedError<RunDefinitionError>()("RunDefinitionError", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * The file beside `out` that holds its run's definition.
 *
 * @category constructors
 * @since 0.1.0
 */
export const pathOf = (out: string): string => `${out}.run.json`

const agentText = (kind: AgentKinds.AgentKind, spec: AgentKinds.Spec, cwd: string, path: Path.Path): string =>
  kind.recorded(spec, (file) => path.resolve(cwd, file))

const scorerText = (spec: string, kinds: ReadonlyArray<ScorerKinds.ScorerKind>, input: Input, path: Path.Path): string => {
  const parsed = ScorerSpec.parse(spec, kinds)
  return typeof parsed === "string" ? spec : ScorerKinds.recorded(parsed, (file) => path.resolve(input.cwd, file), kinds, input)
}

// Recorded only where they are sent, and only when given: a run without them defines what it did before.
const requestsOf = (input: Input, agentAsks: boolean, judged: boolean) => {
  const request = input.cluster === undefined && agentAsks ? Request.flags(input.request) : []
  const judge = judged ? Request.flags(input.judgeRequest, "judge-") : []
  return {
    ...(request.length === 0 ? undefined : { request }),
    ...(judge.length === 0 ? undefined : { judge_request: judge })
  }
}

const isJudge = (spec: string, kinds: ReadonlyArray<ScorerKinds.ScorerKind>) => {
  const parsed = ScorerSpec.parse(spec, kinds)
  return typeof parsed !== "string" && ScorerKinds.usesJudgeModel(parsed, kinds)
}

/**
 * The definition of a run. Undefined when its tasks file cannot be read:
 * the run then stops on the dataset's own error, and there is nothing to
 * define.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fn("RunDefinition.make")(function*(input: Input, runId?: string) {
  const path = yield* Path.Path
  const dataset = yield* sourceOf(input, path)
  if (dataset === undefined) return undefined
  const agentKind = AgentKinds.kindOf(input.agent, input.agents)
  const scorerKinds = input.scorerKinds
  const definition: RunDefinition = {
    version: 1,
    ...(runId === undefined ? undefined : { run_id: runId }),
    written_at: new Date(yield* Clock.currentTimeMillis).toISOString(),
    agent: input.cluster !== undefined
      ? `cluster:${input.cluster}`
      : agentText(agentKind, input.agent, input.cwd, path) + ToolSources.flagsText(input.tools ?? []),
    model: input.cluster === undefined && agentKind.usesModel === true ? input.model ?? null : null,
    scorers: input.scorers.map((spec) => scorerText(spec, scorerKinds, input, path)),
    pass: input.pass ?? null,
    judge_model: input.scorers.some((spec) => isJudge(spec, scorerKinds)) ? input.judgeModel ?? null : null,
    epochs: input.epochs,
    stderr_cluster: Labels.clusterBy(input.stderrCluster, input.epochs),
    group_by: input.groupBy ?? [],
    dataset,
    ...(input.tasks === undefined ? {} : { read: input.read ?? JSONL_AS_IS }),
    rows: input.rows ?? "all",
    pricing: input.pricing === undefined ? null : (yield* fingerprint("--pricing", path.resolve(input.cwd, input.pricing))) ?? null,
    modules: yield* modulesOf(input, agentKind, scorerKinds, path),
    world: worldOf(input, (file) => path.resolve(input.cwd, file)),
    ...(input.user === undefined ? undefined : { user: userOf(input, input.user, path) }),
    ...requestsOf(input, agentKind.usesModel === true, input.scorers.some((spec) => isJudge(spec, scorerKinds)))
  }
  return definition
})

export { differences } from "./internal/definition.ts"

const decode = Schema.decodeUnknownExit(Schema.fromJsonString(RunDefinition))

/**
 * What `check` decided.
 *
 * @category models
 * @since 0.1.0
 */
export interface Checked {
  /** Whether the run's definition is to be written beside `out` (`write`). */
  readonly write: boolean
  /**
   * The run id recorded beside `out`, when this run continues that run: a
   * resume keeps the id of the run it continues, so its summary names the
   * run the file belongs to (`report --summary` compares them).
   */
  readonly runId: string | undefined
}

const fresh: Checked = { write: true, runId: undefined }
const nothing: Checked = { write: false, runId: undefined }

/**
 * Checks, before the results file is touched, that `out` may be continued by
 * the run `definition` defines, and says whether its definition is to be
 * written (`write`, after the results file is ready) and which recorded run
 * it continues. A fresh run, or a resumed one whose file holds nothing yet,
 * writes it; so does a resumed file written before definitions were
 * recorded (with a warning). A resumed file whose definition differs is
 * refused, naming what differs; a tasks file changed in place is a warning
 * (a fixed bad line, appended tasks). Nothing is checked or written for a
 * device or a pipe (`/dev/stdout`).
 *
 * @category resume
 * @since 0.1.0
 */
export const check = Effect.fn("RunDefinition.check")(function*(
  out: string,
  definition: RunDefinition | undefined,
  resume: boolean
) {
  const fs = yield* FileSystem.FileSystem
  if (definition === undefined || out === "-") return nothing
  const info = yield* Effect.option(fs.stat(out))
  if (info._tag === "Some" && info.value.type !== "File") return nothing
  if (!resume || info._tag === "None" || Number(info.value.size) === 0) return fresh
  const file = pathOf(out)
  const fail = (message: string) => new RunDefinitionError({ path: file, message })
  const text = yield* Effect.result(fs.readFileString(file))
  if (text._tag === "Failure") {
    if (text.failure.reason._tag !== "NotFound") {
      return yield* fail(`--resume: cannot read ${file}: ${text.failure.message}`)
    }
    yield* Console.error(
      `agent-trials: --resume: ${out} has no ${file} (it was written before runs recorded what defines them), ` +
        `so this run cannot be checked against it; resuming, and writing ${file} now`
    )
    return fresh
  }
  const recorded = decode(text.success)
  if (recorded._tag === "Failure") {
    return yield* fail(
      `--resume: ${file} is not a run definition (${String(recorded.cause).split("\n")[0]}); ` +
        `remove it to resume ${out} without the check`
    )
  }
  const differ = differences(recorded.value, definition)
  if (differ.length > 0) {
    return yield* fail(
      `--resume: ${out} was written with ${differ.map(([then]) => then).join(" and ")}, ` +
        `this run has ${differ.map(([, now]) => now).join(" and ")} (its definition: ${file}); ` +
        `resume with the same flags, or choose another --out`
    )
  }
  const then = recorded.value.dataset
  const now = definition.dataset
  if ("tasks" in then && "tasks" in now && !same(then, now)) {
    yield* Console.error(
      `agent-trials: --resume: ${now.tasks} has changed since ${out} was started ` +
        (then.size === now.size ? "(the same size, other content)" : `(${then.size} bytes then, ${now.size} now)`) +
        `: the trials already recorded are kept as they are, the rest are run from the file as it is now`
    )
  }
  for (const [was, is] of changedModules(recorded.value, definition)) {
    yield* Console.error(
      `agent-trials: --resume: ${was.flag} module ${is.path} has changed since ${out} was started ` +
        `(content sha256 ${shortSha(was.sha256)} then, ${shortSha(is.sha256)} now): ` +
        `the trials already recorded are kept as they are, the rest are run with the file as it is now`
    )
  }
  return { write: false, runId: recorded.value.run_id } satisfies Checked
})

/**
 * The run id recorded beside `results` (in `RESULTS.run.json`): the run that
 * started the file, which its resumes continue. Undefined when there is no
 * such file, it cannot be read or decoded, or it names no run (a definition
 * written before run ids were recorded).
 *
 * @category resume
 * @since 0.1.0
 */
export const runIdOf = (results: string): Effect.Effect<string | undefined, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.option(fs.readFileString(pathOf(results)))
    if (text._tag === "None") return undefined
    const recorded = decode(text.value)
    return recorded._tag === "Success" ? recorded.value.run_id : undefined
  })

/**
 * Writes `definition` beside `out`, atomically.
 *
 * @category resume
 * @since 0.1.0
 */
export const write = (out: string, definition: RunDefinition) =>
  writeFileAtomic(pathOf(out), JSON.stringify(definition, null, 2) + "\n").pipe(
    Effect.mapError((e) => new RunDefinitionError({ path: pathOf(out), message: e.message }))
  )
