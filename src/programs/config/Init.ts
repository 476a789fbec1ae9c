/**
 * `agent-trials init`: writes a commented `agent-trials.yaml` that runs as
 * written (the built-in simulated agent on generated tasks, scored, the
 * response cache on), and
 * explains the keys a team changes first.
 *
 * @since 0.8.0
 */
import { Console, Effect, FileSystem, Path, Schema } from "effect"
import { DEFAULT_FILE } from "./File.ts"

/**
 * The file `init` writes.
 *
 * @category models
 * @since 0.8.0
 */
export const TEMPLATE = `# agent-trials.yaml: the options \`agent-trials run\` (and score, report, compare) reads
# when no --config FILE is given. Keys are the long flag names \`agent-trials run --help\`
# prints; a repeatable flag takes a list. A flag on the command line, then an AGENT_TRIALS_*
# variable, wins over a key here. Relative paths are read from this file's folder.
# Run it: npx agent-trials run

# The agent. Yours: module:./agent.ts#run (a function), https://host/path (an HTTP endpoint),
# openai:https://api.openai.com/v1 with model: (an OpenAI-compatible API, key from OPENAI_API_KEY).
agent: sim
# model: gpt-4o-mini

# The tasks: 100 generated ones. Yours: a .jsonl, .csv, .json or .parquet file, or hf:OWNER/NAME.
synthetic: 100
# tasks: tasks.jsonl

# How each answer is scored: exact, includes, regex:PATTERN, numeric, judge:URL, module:./score.ts
score: [exact]

# Trials per task (more epochs, tighter intervals), and agent calls in flight at most.
epochs: 1
parallelism: 8

# Each attempt's time limit, and the retries of timeouts, network errors, 429 and 5xx.
timeout: 30s
retries: 2

# Where the results go (default runs/<run-id>.jsonl), and the summary as JSON.
# out: runs/latest.jsonl
# summary: runs/latest-summary.json

# Stop once the trials have spent this much (needs pricing: prices.yaml).
# max-cost: 5

# Answers of openai: and http(s):// agents and of judges, kept 7 days in <cache-dir>/responses.sqlite:
# a run asked the same again pays nothing for them (its records say metadata.cache: hit, and hits are
# counted apart from latency and spend). Each epoch is its own sample. false turns it off.
cache: 7d
`

/**
 * `init` found the file there and was not told to overwrite it: exit 2.
 *
 * @category errors
 * @since 0.8.0
 */
export class InitExists extends Schema.TaggedError<InitExists>()("InitExists", {
  file: Schema.String
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  /** The flag that overwrites it. */
  get flag(): string {
    return "--force"
  }
  override get message(): string {
    return `${this.file} exists: init leaves it as it is (--force overwrites it)`
  }
}

/**
 * Writes `agent-trials.yaml` in `cwd`; refuses to overwrite one unless
 * `force`.
 *
 * @category running
 * @since 0.8.0
 */
export const init = Effect.fn("Init.init")(function*(options: { readonly cwd: string; readonly force: boolean }) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const file = path.join(options.cwd, DEFAULT_FILE)
  if (!options.force && (yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false)))) {
    return yield* new InitExists({ file: DEFAULT_FILE })
  }
  yield* fs.writeFileString(file, TEMPLATE)
  yield* Console.log(`wrote ${DEFAULT_FILE}: \`agent-trials run\` reads it (keys are run's long flag names; see --help)`)
  return file
})
