/**
 * The command-line surface. Entrypoints in scripts/ only run these commands.
 *
 * @since 0.1.0
 */
import { Config, Console, Duration, Effect, Option, Runtime, Schema } from "effect"
import { Argument, CliError, CliOutput, Command, Flag } from "effect/cli"
import * as OpenAiAgent from "../agents/OpenAi.ts"
import * as SimAgent from "../agents/Sim.ts"
import * as Options from "../programs/Options.ts"
import * as Compare from "../programs/Compare.ts"
import * as Report from "../programs/Report.ts"
import { formatReport, reproduce } from "../programs/Repro.ts"
import * as Run from "../programs/Run.ts"
import * as Gates from "../scoring/Gates.ts"
import * as Rescore from "../programs/Rescore.ts"

/**
 * The reproduction did not show the bounded runner within its bounds.
 *
 * @category errors
 * @since 0.1.0
 */
export class BoundsViolated extends Schema.TaggedError<BoundsViolated>()("BoundsViolated", {
  message: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 1
  override readonly [Runtime.errorReported] = false
}

/**
 * Bad flags or input: exit code 2.
 *
 * @category errors
 * @since 0.1.0
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
}

/**
 * The run stopped before its end: its failure budget (`--max-failures`) was
 * exceeded, or the results file could not be written. Exit 1.
 *
 * @category errors
 * @since 0.1.0
 */
export class RunStopped extends Schema.TaggedError<RunStopped>()("RunStopped", {
  message: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 1
  override readonly [Runtime.errorReported] = false
}

/**
 * Prints a failure of ours as one plain line on stderr (no stack trace): the
 * message already names the flag, file or line at fault.
 *
 * @category combinators
 * @since 0.1.0
 */
export const reportErrors = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapError(self, (error) =>
    error instanceof UsageError || error instanceof BoundsViolated || error instanceof RunStopped
      ? Console.error(`agent-trials: ${error.message}`)
      : Effect.void)

// A command's own failure as its exit: bad input 2, a stop on the way (a
// failure budget, a results file that cannot be written) 1.
const exitFor = (isInput: (error: unknown) => boolean) => (error: { readonly message: string }) =>
  isInput(error) ? new UsageError({ message: error.message }) : new RunStopped({ message: error.message })

/**
 * A command-line parse failure, already printed with the help text: exit 2.
 *
 * @category errors
 * @since 0.1.0
 */
export class ParseFailed extends Schema.TaggedError<ParseFailed>()("ParseFailed", {}) {
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
}

// A refused value is one line on stderr, like every other usage error (the
// message names the flag or variable and what is expected); anything else
// (an unknown flag, a missing value) still gets the help text.
const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation" &&
      event.errors.every((e) => e._tag === "ValidationError" || e._tag === "InvalidValue")
      ? Console.error(event.errors.map((e) => `agent-trials: ${e.message}`).join("\n"))
      : CliOutput.defaultPresenter.present(event)
}

/**
 * Runs a command on the process arguments: `--help` exits 0, a parse error 2.
 *
 * @category running
 * @since 0.1.0
 */
export const runCli = <Name extends string, Input, E, R>(command: Command.Command<Name, Input, {}, E, R>) =>
  Command.run(command, { version: "0.1.0" }).pipe(
    Effect.provideService(CliOutput.Presenter, presenter),
    Effect.catchIf(CliError.isCliError, (error) =>
      error._tag === "ShowHelp" && error.errors.length === 0 ? Effect.void : Effect.fail(new ParseFailed()))
  )

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
    const report = yield* reproduce({ tasks, parallelism }).pipe(
      Effect.mapError((e) => new UsageError({ message: e.message.replace("parallelism", "--parallelism") }))
    )
    yield* Console.log(json ? JSON.stringify(report, null, 2) : formatReport(report))
    if (!report.bounds_held) {
      return yield* new BoundsViolated({ message: "the bounded runner exceeded its bounds or left tasks incomplete" })
    }
  }, reportErrors)
).pipe(Command.withDescription(
  "Reproduce the eager-admission bug: run the original shape and agent-trials side by side on a gated local agent"
))

// Every run flag falls back to AGENT_TRIALS_<FLAG>, then to its default; the
// help text names the variable.
const envName = (flag: string) => `AGENT_TRIALS_${flag.toUpperCase().replaceAll("-", "_")}`
const described = (flag: string, description: string) => `${description} [env ${envName(flag)}]`

const optionalString = (name: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(described(name, description)),
    Flag.withFallbackConfig(Config.String(envName(name))),
    Flag.optional
  )

const refused = (e: Options.InvalidOption) => new CliError.ValidationError({ message: e.message })

// The flag's text decoded by the option's Schema; without the flag, the
// variable decoded by the same Schema; without either, `fallback`. A refused
// value fails the parse with the Schema's words, naming the flag or the
// variable it came from. Not `Flag.withSchema` / `withFallbackConfig`: they
// word it `Invalid value for flag --timeout: "5". Expected: Schema validation
// failed: ...`, and a bad variable as `--timeout: "config". Expected:
// SchemaError(... at ["AGENT_TRIALS_TIMEOUT"])` over two lines.
const optionFlag = <A, const D>(
  name: string,
  metavar: string,
  schema: Schema.Codec<A, string>,
  fallback: D,
  description: string
): Flag.Flag<A | D> =>
  Flag.String(name).pipe(
    Flag.withDescription(described(name, description)),
    Flag.withMetavar(metavar),
    Flag.mapEffect((text) => Effect.mapError(Options.decode(schema, `--${name}`)(text), refused)),
    Flag.withDefault(
      Options.fromConfig(schema, envName(name)).pipe(
        Effect.map(Option.getOrElse((): A | D => fallback)),
        Effect.mapError(refused)
      )
    )
  )

// Repeatable; without the flag, AGENT_TRIALS_SCORE gives one spec.
const scoreFlag = (description: string) =>
  Flag.String("score").pipe(
    Flag.withDescription(described("score", description)),
    Flag.withMetavar("SPEC"),
    Flag.atLeast(0)
  )

// Repeatable, each value decoded by the option's Schema (no variable: a
// list of paths is no one variable's value).
const repeatedFlag = <A>(name: string, metavar: string, schema: Schema.Codec<A, string>, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(description),
    Flag.withMetavar(metavar),
    Flag.atLeast(0),
    Flag.mapEffect((texts) =>
      Effect.mapError(Effect.forEach(texts, (text) => Options.decode(schema, `--${name}`)(text)), refused)
    )
  )

// The flags of the statistics a summary reports: run and score take them.
const statisticsFlags = {
  passK: optionFlag(
    "pass-k",
    "K,K,...",
    Options.PassK,
    undefined,
    "The k of pass@k and pass^k reported, each at most --epochs (default 1, min(5, K), K)"
  ),
  failUnder: repeatedFlag(
    "fail-under",
    "NAME=X[@lower]",
    Gates.GateSpec,
    "Exit 1 when scorer NAME's mean (passed: the pass rate) is below X; @lower judges the 95% interval's lower bound, repeatable"
  ),
  groupBy: repeatedFlag(
    "group-by",
    "PATH",
    Options.TaskPath,
    "Break the scores down by the values of this dotted path into the task (metadata.subject), repeatable"
  )
}

const scoreFromEnv = (specs: ReadonlyArray<string>) =>
  specs.length > 0
    ? Effect.succeed(specs)
    : Config.option(Config.String(envName("score"))).pipe(
      Effect.map(Option.match({ onNone: () => specs, onSome: (spec) => [spec] })),
      Effect.orElseSucceed(() => specs)
    )

const SCORE_DESCRIPTION =
  "A scorer, repeatable: exact | includes | regex[:PATTERN] | numeric[:tolerance=T] | json | levenshtein[:threshold=X] | " +
  "judge:BASE_URL | module:PATH[#export], optionally NAME=SPEC; none scores nothing"

const switchFlag = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withoutNegation, Flag.withDefault(false))

/**
 * `run`: stream a dataset through an agent, write every result, resume after
 * a crash. Every flag falls back to an `AGENT_TRIALS_*` environment variable,
 * then to its default.
 *
 * @category commands
 * @since 0.1.0
 */
export const runCommand = Command.make(
  "run",
  {
    cluster: optionalString(
      "cluster",
      "postgres://USER[:PASSWORD]@HOST[:PORT]/DB: run the trials on that cluster's workers (agent-trials worker), not here"
    ),
    tasks: optionalString("tasks", "JSONL file of tasks, one AgentEvalTask per line, read lazily; - reads stdin"),
    synthetic: optionFlag(
      "synthetic",
      "N",
      Options.Count,
      undefined,
      `Generate N synthetic tasks instead (default when no --tasks: ${Run.DEFAULT_SYNTHETIC})`
    ),
    // No default here: `run --cluster` refuses an agent however it is given.
    agent: optionFlag(
      "agent",
      "SPEC",
      Options.AgentSpec,
      undefined,
      "sim[:latency=20ms,jitter=10ms,fail=0.02,seed=1] (jitter unless given: 10ms, at most latency/2) | module:PATH[#export] | http(s)://URL | openai:BASE_URL (default sim)"
    ),
    model: optionalString("model", "Model name for openai: agents (required there; the key comes from OPENAI_API_KEY)"),
    parallelism: optionFlag(
      "parallelism",
      "N",
      Options.Parallelism,
      8,
      "Agent calls in flight at most, and trials admitted at most (an integer >= 1, default 8)"
    ),
    epochs: optionFlag(
      "epochs",
      "K",
      Options.Epochs,
      1,
      "Trials per task, at most 10000; trial ids are TASK_ID:EPOCH, EPOCH from 1 (default 1)"
    ),
    out: optionalString("out", "Results file (JSONL, appended as trials finish; default runs/<run-id>.jsonl)"),
    resume: switchFlag("resume", "Continue --out: skip recorded trials, repair a torn last line, append the rest"),
    retryFailed: switchFlag(
      "retry-failed",
      "With --resume: run the recorded failed trials again (their old lines are removed)"
    ),
    summary: optionalString("summary", "Also write the summary as JSON to this file"),
    noProgress: switchFlag(
      "no-progress",
      "No progress display (otherwise, on stderr: a live line on a terminal, elsewhere a line every 5 s)"
    ),
    onInvalid: optionFlag(
      "on-invalid",
      "fail|skip",
      Options.OnInvalid,
      "fail",
      "A bad dataset line: fail (stop admitting, keep what is recorded, exit 2) or skip (record it as a failed trial of type InvalidTask); default fail"
    ),
    timeout: optionFlag(
      "timeout",
      "DURATION",
      Options.Duration,
      undefined,
      "Per attempt (500ms, 30s, 2m, 1h): the call is interrupted and the attempt fails with Timeout; none by default"
    ),
    retries: optionFlag(
      "retries",
      "N",
      Options.Count,
      2,
      "Retries of retryable failures: timeouts, network errors, HTTP 408/429/5xx (default 2)"
    ),
    backoff: optionFlag(
      "backoff",
      "DURATION",
      Options.Duration,
      Duration.millis(500),
      "Base of the jittered exponential backoff between attempts (default 500ms)"
    ),
    backoffMax: optionFlag("backoff-max", "DURATION", Options.Duration, Duration.seconds(30), "Longest backoff wait (default 30s)"),
    retryAfterMax: optionFlag(
      "retry-after-max",
      "DURATION",
      Options.Duration,
      Duration.seconds(60),
      "Longest wait a Retry-After header of a 429 or 503 may impose (default 60s)"
    ),
    rate: optionFlag(
      "rate",
      "RATE",
      Options.Rate,
      undefined,
      "Cap on agent call starts across the run: N/s, N/m (or N/min) or N/h, N > 0; none by default"
    ),
    adaptive: switchFlag(
      "adaptive",
      "On HTTP 429 halve the concurrency, then raise it back one step at a time (never above --parallelism)"
    ),
    maxFailures: optionFlag(
      "max-failures",
      "N|P%",
      Options.MaxFailures,
      undefined,
      "Stop (exit 1) when more than N trials, or more than P% of finished trials (from 20 on), have failed; no limit by default"
    ),
    score: scoreFlag(`${SCORE_DESCRIPTION} (default exact for synthetic tasks, none for --tasks)`),
    scoreParallelism: optionFlag(
      "score-parallelism",
      "N",
      Options.Parallelism,
      undefined,
      "Trials being scored at most (an integer >= 1; default --parallelism)"
    ),
    judgeModel: optionalString("judge-model", "Model a judge: scorer asks (the key comes from OPENAI_API_KEY)"),
    judgeParallelism: optionFlag(
      "judge-parallelism",
      "N",
      Options.Parallelism,
      undefined,
      "Judge calls in flight at most, across the run (an integer >= 1; default --score-parallelism)"
    ),
    pass: optionalString("pass", "The scorer whose verdict decides whether a trial passed (default: every scorer must pass)"),
    report: optionalString("report", "Write the HTML report here at the end of the run (see the report command)"),
    stderrCluster: optionFlag(
      "stderr-cluster",
      "PATH|none",
      Options.StderrCluster,
      undefined,
      "Cluster standard errors by this dotted path into the task (metadata.passage_id); none: do not cluster " +
        "(default: by task when --epochs > 1)"
    ),
    ...statisticsFlags
  },
  Effect.fn("Cli.run")(function*(flags) {
    const apiKey = yield* OpenAiAgent.keyFromConfig.pipe(Effect.orElseSucceed(() => undefined))
    const progressInterval = yield* Config.Int("AGENT_TRIALS_PROGRESS_INTERVAL_MS").pipe(
      Config.withDefault(0),
      Effect.orElseSucceed(() => 0)
    )
    const tty = process.stderr.isTTY === true
    yield* runHereOrOnCluster(Option.getOrUndefined(flags.cluster), {
      agent: flags.agent !== undefined,
      model: Option.isSome(flags.model)
    }, {
      tasks: Option.getOrUndefined(flags.tasks),
      synthetic: flags.synthetic,
      agent: flags.agent ?? { _tag: "Sim", options: SimAgent.defaults },
      model: Option.getOrUndefined(flags.model),
      apiKey,
      parallelism: flags.parallelism,
      epochs: flags.epochs,
      out: Option.getOrUndefined(flags.out),
      resume: flags.resume,
      retryFailed: flags.retryFailed,
      summary: Option.getOrUndefined(flags.summary),
      progress: !flags.noProgress,
      progressInterval: progressInterval > 0 ? progressInterval : tty ? 250 : 5000,
      tty,
      onInvalid: flags.onInvalid,
      cwd: process.cwd(),
      timeout: flags.timeout,
      retries: flags.retries,
      backoff: flags.backoff,
      backoffMax: flags.backoffMax,
      retryAfterMax: flags.retryAfterMax,
      rate: flags.rate,
      adaptive: flags.adaptive,
      maxFailures: flags.maxFailures,
      score: yield* scoreFromEnv(flags.score),
      scoreParallelism: flags.scoreParallelism,
      judgeModel: Option.getOrUndefined(flags.judgeModel),
      judgeParallelism: flags.judgeParallelism,
      pass: Option.getOrUndefined(flags.pass),
      report: Option.getOrUndefined(flags.report),
      stderrCluster: flags.stderrCluster,
      groupBy: flags.groupBy,
      passK: flags.passK,
      failUnder: flags.failUnder
    }).pipe(Effect.mapError(exitFor((e) => e instanceof Run.RunInputError)))
  }, reportErrors)
).pipe(Command.withDescription(
  "Run every task of a dataset through an agent, at most --parallelism at a time, appending each trial to --out as it finishes"
))

// `run --cluster`: the cluster's code is loaded only then. The agent is the
// workers' (`worker --agent`); rate and adaptive limits are per process and
// would not bound the cluster, so they are refused rather than ignored.
const runHereOrOnCluster = (
  cluster: string | undefined,
  given: { readonly agent: boolean; readonly model: boolean },
  config: Run.RunConfig
) =>
  cluster === undefined ? Run.run(config) : Effect.gen(function*() {
    const notHere = (flag: string, why: string) =>
      new Run.RunInputError({ message: `${flag} cannot be used with --cluster: ${why}` })
    // Given as a flag or as its AGENT_TRIALS_* variable, the default value too.
    if (given.agent) {
      return yield* notHere("--agent", "the workers call their own agent (agent-trials worker --agent SPEC)")
    }
    if (given.model) {
      return yield* notHere("--model", "the workers call their own agent (agent-trials worker --model NAME)")
    }
    if (config.rate !== undefined) return yield* notHere("--rate", "it would limit this process, not the cluster")
    if (config.adaptive) return yield* notHere("--adaptive", "it would limit this process, not the cluster")
    const Cluster = yield* Effect.promise(() => import("../programs/Cluster.ts"))
    return yield* Cluster.withRemote(cluster, (remote, shown) => Run.run({ ...config, remote, cluster: shown })).pipe(
      Effect.mapError((e) => Cluster.isInputError(e) ? new Run.RunInputError({ message: e.message }) : e)
    )
  })

const clusterFlag = Flag.String("cluster").pipe(
  Flag.withDescription(described("cluster", "postgres://USER[:PASSWORD]@HOST[:PORT]/DB: the cluster's database")),
  Flag.withFallbackConfig(Config.String(envName("cluster")))
)

/**
 * `worker --cluster URL [--agent SPEC] [--parallelism N]`: a long-running
 * process that runs the trials of `run --cluster` runs.
 *
 * @category commands
 * @since 0.1.0
 */
export const workerCommand = Command.make(
  "worker",
  {
    cluster: clusterFlag,
    agent: optionFlag(
      "agent",
      "SPEC",
      Options.AgentSpec,
      { _tag: "Sim", options: SimAgent.defaults },
      "sim[:latency=20ms,jitter=10ms,fail=0.02,seed=1] (jitter unless given: 10ms, at most latency/2) | module:PATH[#export] | http(s)://URL | openai:BASE_URL (default sim)"
    ),
    model: optionalString("model", "Model name for openai: agents (required there; the key comes from OPENAI_API_KEY)"),
    parallelism: optionFlag(
      "parallelism",
      "N",
      Options.Parallelism,
      8,
      "Agent calls in flight at most on this worker (an integer >= 1, default 8)"
    ),
    host: optionalString("host", "The host name other processes reach this worker at (default: this machine's host name)"),
    port: optionFlag("port", "PORT", Options.Parallelism, 34431, "The port this worker listens on (default 34431)")
  },
  Effect.fn("Cli.worker")(function*(flags) {
    const apiKey = yield* OpenAiAgent.keyFromConfig.pipe(Effect.orElseSucceed(() => undefined))
    const Cluster = yield* Effect.promise(() => import("../programs/Cluster.ts"))
    const os = yield* Effect.promise(() => import("node:os"))
    yield* Cluster.worker({
      cluster: flags.cluster,
      agent: flags.agent,
      model: Option.getOrUndefined(flags.model),
      apiKey,
      parallelism: flags.parallelism,
      host: Option.getOrElse(flags.host, () => os.hostname()),
      port: flags.port,
      cwd: process.cwd()
    }).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
  }, reportErrors)
).pipe(Command.withDescription(
  "Run the trials of `run --cluster` runs: a long-running worker of the cluster whose database is --cluster"
))

/**
 * `cluster prune --cluster URL [--out FILE]`: deletes trial messages from the
 * cluster's database.
 *
 * @category commands
 * @since 0.1.0
 */
export const clusterCommand = Command.make("cluster").pipe(
  Command.withDescription("Cluster housekeeping"),
  Command.withSubcommands([
    Command.make(
      "prune",
      {
        cluster: clusterFlag,
        out: optionalString("out", "Delete every message of the run writing this results file (default: every processed message)")
      },
      Effect.fn("Cli.clusterPrune")(function*(flags) {
        const Cluster = yield* Effect.promise(() => import("../programs/Cluster.ts"))
        yield* Cluster.pruneMessages({ cluster: flags.cluster, out: Option.getOrUndefined(flags.out), cwd: process.cwd() })
          .pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
      }, reportErrors)
    ).pipe(Command.withDescription(
      "Delete trial messages from the cluster's database: one run's (--out FILE) or every processed one"
    ))
  ])
)

/**
 * `score RESULTS.jsonl --score SPEC... --out SCORED.jsonl [--tasks FILE]
 * [--resume]`: score (or re-score) an existing results file.
 *
 * @category commands
 * @since 0.1.0
 */
export const scoreCommand = Command.make(
  "score",
  {
    results: Argument.String("results").pipe(Argument.withDescription("The results file (JSONL) to score")),
    score: scoreFlag(SCORE_DESCRIPTION),
    out: Flag.String("out").pipe(Flag.withDescription("The scored results file (JSONL, appended as trials are scored)")),
    tasks: optionalString("tasks", "JSONL task file giving each trial's task (its reference), joined by task id"),
    resume: switchFlag("resume", "Continue --out: skip the trials it already holds"),
    parallelism: optionFlag(
      "score-parallelism",
      "N",
      Options.Parallelism,
      8,
      "Trials being scored at most (an integer >= 1, default 8)"
    ),
    judgeModel: optionalString("judge-model", "Model a judge: scorer asks (the key comes from OPENAI_API_KEY)"),
    judgeParallelism: optionFlag(
      "judge-parallelism",
      "N",
      Options.Parallelism,
      undefined,
      "Judge calls in flight at most (an integer >= 1; default --score-parallelism)"
    ),
    pass: optionalString("pass", "The scorer whose verdict decides whether a trial passed (default: every scorer must pass)"),
    summary: optionalString("summary", "Also write the summary as JSON to this file"),
    passK: statisticsFlags.passK,
    failUnder: statisticsFlags.failUnder
  },
  Effect.fn("Cli.score")(function*(flags) {
    const apiKey = yield* OpenAiAgent.keyFromConfig.pipe(Effect.orElseSucceed(() => undefined))
    yield* Rescore.score({
      input: flags.results,
      score: yield* scoreFromEnv(flags.score),
      out: flags.out,
      tasks: Option.getOrUndefined(flags.tasks),
      resume: flags.resume,
      parallelism: flags.parallelism,
      judgeModel: Option.getOrUndefined(flags.judgeModel),
      judgeParallelism: flags.judgeParallelism,
      pass: Option.getOrUndefined(flags.pass),
      summary: Option.getOrUndefined(flags.summary),
      passK: flags.passK,
      failUnder: flags.failUnder,
      apiKey,
      cwd: process.cwd()
    }).pipe(Effect.mapError(exitFor((e) => e instanceof Rescore.ScoreInputError)))
  }, reportErrors)
).pipe(Command.withDescription(
  "Score (or re-score) an existing results file with --score scorers, writing the scored trials to --out"
))

/**
 * `compare BASE.jsonl NEW.jsonl [--pass NAME] [--json FILE] [--html FILE]
 * [--fail-on-regression] [--non-inferiority M]`: the paired change of each
 * scorer between two results files. Exit 0; 1 with `--fail-on-regression`
 * when a scorer regressed (Holm over the scorers judged), or with
 * `--non-inferiority M` when a scorer's interval reaches -M; 2 on bad input.
 *
 * @category commands
 * @since 0.1.0
 */
export const compareCommand = Command.make(
  "compare",
  {
    base: Argument.String("base").pipe(Argument.withDescription("The results file (JSONL) before the change")),
    new: Argument.String("new").pipe(Argument.withDescription("The results file (JSONL) after the change")),
    pass: Flag.String("pass").pipe(
      Flag.withDescription("The scorer whose verdict decides whether a trial passed (default: every scorer both files carry)"),
      Flag.optional
    ),
    json: Flag.String("json").pipe(Flag.withDescription("Also write the comparison as JSON to this file"), Flag.optional),
    html: Flag.String("html").pipe(Flag.withDescription("Also write a self-contained HTML page to this file"), Flag.optional),
    failOnRegression: switchFlag(
      "fail-on-regression",
      "Exit 1 when a scorer's mean dropped with a Holm-adjusted p below 0.05 over the scorers judged (family-wise 5%)"
    ),
    nonInferiority: Flag.String("non-inferiority").pipe(
      Flag.withDescription("Exit 1 unless every shared scorer's 95% interval of the change lies above -M (M >= 0)"),
      Flag.withMetavar("M"),
      Flag.mapEffect((text) => Effect.mapError(Options.decode(Options.Margin, "--non-inferiority")(text), refused)),
      Flag.optional
    )
  },
  Effect.fn("Cli.compare")(function*(flags) {
    yield* Compare.run({
      base: flags.base,
      new: flags.new,
      pass: Option.getOrUndefined(flags.pass),
      json: Option.getOrUndefined(flags.json),
      html: Option.getOrUndefined(flags.html),
      failOnRegression: flags.failOnRegression,
      nonInferiority: Option.getOrUndefined(flags.nonInferiority)
    }).pipe(Effect.mapError(exitFor((e) => e instanceof Compare.CompareInputError)))
  }, reportErrors)
).pipe(Command.withDescription(
  "Compare two results files task by task: each scorer's change in mean with a 95% paired interval, pass@1, flipped tasks"
))

/**
 * `report RESULTS.jsonl --html FILE [--max-rows N] [--tasks FILE] [--summary
 * FILE]`: one self-contained HTML page about a results file.
 *
 * @category commands
 * @since 0.1.0
 */
export const reportCommand = Command.make(
  "report",
  {
    results: Argument.String("results").pipe(Argument.withDescription("The results file (JSONL) to report on")),
    html: Flag.String("html").pipe(Flag.withDescription("Write the report (one self-contained HTML file) here")),
    maxRows: optionFlag(
      "max-rows",
      "N",
      Options.Parallelism,
      Report.DEFAULT_MAX_ROWS,
      `Rows of the trials table at most, failures first; every aggregate covers the whole file (default ${Report.DEFAULT_MAX_ROWS})`
    ),
    tasks: Flag.String("tasks").pipe(
      Flag.withDescription("JSONL task file: the input and reference of the rows shown, joined by task id"),
      Flag.optional
    ),
    summary: Flag.String("summary").pipe(
      Flag.withDescription("The summary of the run that wrote RESULTS (run --summary FILE; one of another run or other trials is refused): outcome, wall time, parallelism, peaks, epochs, scorers"),
      Flag.optional
    )
  },
  Effect.fn("Cli.report")(function*(flags) {
    const written = yield* Report.report({
      results: flags.results,
      html: flags.html,
      maxRows: flags.maxRows,
      tasks: Option.getOrUndefined(flags.tasks),
      summary: Option.getOrUndefined(flags.summary)
    }).pipe(Effect.mapError(exitFor((e) => e instanceof Report.ReportInputError)))
    yield* Console.log(
      `report: ${written.html} (${written.trials} trials, ${written.rows} rows in the table, ${written.bytes} bytes)`
    )
  }, reportErrors)
).pipe(Command.withDescription(
  "Write one self-contained HTML report of a results file: counts, scores, pass@k, latency, throughput, failures, a table of trials"
))

/**
 * `agent-trials`: the root command.
 *
 * @category commands
 * @since 0.1.0
 */
export const trialsCommand = Command.make("agent-trials").pipe(
  Command.withDescription("A bounded, streaming evaluation runner for AI agents"),
  Command.withSubcommands([runCommand, scoreCommand, compareCommand, reportCommand, reproCommand, workerCommand, clusterCommand])
)
