/**
 * What `compare` keeps of one results file: per task, a few counts (trials,
 * failed trials, per scorer the sum of its values, how many trials carry it
 * and how many passed it, and the trials by which scorers they carry and
 * pass, and what they spent), and what its first trial says of its groups
 * (`metadata.groups`) and of its cluster (`metadata.stderr_cluster`). No
 * trial record is kept: memory grows with the number of tasks, not of trials.
 *
 * @internal
 */
import { Effect, FileSystem, Schema, Stream } from "effect"
import { MutableProbe } from "../../runner/internal/probe.ts"
import * as ResultsStores from "../../results/ResultsStores.ts"
import { Registry } from "../internal/kinds.ts"
import * as Summary from "../../summary/Summary.ts"
import type { AgentEvalTrial } from "../../domain/Trial.ts"
import { Aggregate } from "../../report/Aggregate.ts"
import { FileUsage, NO_USAGE, type TaskUsage } from "./UsageTally.ts"
import { whereFields, whereOf } from "../../domain/internal/where.ts"

/**
 * A file or flag `compare` cannot use (exit code 2).
 *
 * @category errors
 * @since 0.1.0
 */
export class CompareInputError extends Schema.TaggedError<CompareInputError>()("CompareInputError", {
  message: Schema.String,
  /** The flag, file and line at fault, when known. */
  ...whereFields
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  /** Bad input from another error: its message, and the flag, file (its `file` or `path`) and line it names. */
  static from(error: { readonly message: string }): CompareInputError {
    return new CompareInputError({ message: error.message, ...whereOf(error) })
  }
}

// A trial's scorers are bits of a mask (its file's scorers, indexed in order
// of first appearance): 30 bits stay small integers.
const MAX_SCORERS = 30

// A task's arrays are replaced by exact-size copies as they grow, never
// pushed to: a push reserves room for 16 more elements, and there are as many
// of these arrays as tasks. Nothing writes to EMPTY: it is always replaced.
const EMPTY: Array<number> = []
const grown = (a: Array<number>, length: number): Array<number> => {
  const b = new Array<number>(length).fill(0)
  for (let i = 0; i < a.length; i++) b[i] = a[i]
  return b
}

/** @internal */
export interface TaskTally {
  /** Trials of the task (an `InvalidTask` line is no trial of it). */
  trials: number
  /** Of them, with status `completed`. */
  completed: number
  /** Of them, with status `failed`: value 0 and not passed, for every scorer. */
  failed: number
  /** Per scorer index i: `[3i]` sum of values, `[3i+1]` trials carrying it, `[3i+2]` trials passing it. */
  scores: Array<number>
  /** The task's trials that did not fail, as triples: mask of scorers carried, mask passed, count. */
  outcomes: Array<number>
  /**
   * Its first trial's `metadata.group_keys` (else `metadata.groups`), by
   * index of the file's `groupPaths`: the key as text, null when the task has none at that path, undefined
   * when the trial is not grouped by it; undefined when it carries no groups.
   */
  groups: ReadonlyArray<string | null | undefined> | undefined
  /**
   * Its first trial's `metadata.stderr_cluster.value` (null: none at the
   * path, the task its own cluster); undefined when clustering is off or not
   * recorded.
   */
  cluster: string | null | undefined
  /** What its trials spent (`CompareUsageTally`); empty while none reported usage. */
  usage: TaskUsage
}

// The two fields `run` adds to a trial's metadata for issue 21, as it writes them.
const GroupsMetadata = Schema.Record(Schema.String, Schema.NullOr(Schema.String))
const ClusterMetadata = Schema.NullOr(Schema.Struct({ by: Schema.String, value: Schema.NullOr(Schema.String) }))
const isGroups = Schema.is(GroupsMetadata)
const isCluster = Schema.is(ClusterMetadata)

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

// What is wrong with a metadata.groups that is not GroupsMetadata.
const groupsProblem = (field: string, groups: unknown): string => {
  if (typeof groups !== "object" || groups === null || Array.isArray(groups)) {
    return `metadata.${field} must be an object of PATH to the task's value as text or null, got ${shown(groups)}`
  }
  const bad = Object.entries(groups).find(([, v]) => v !== null && typeof v !== "string")
  return `metadata.${field}[${JSON.stringify(bad?.[0])}] must be the task's value as text or null, got ${shown(bad?.[1])}`
}

// How a record says standard errors were clustered: a PATH, `task`, or `none` (null or absent).
const NONE = "none"

/** @internal */
export class FileTally {
  readonly file: string
  readonly tasks = new Map<string, TaskTally>()
  /** The scorers the file's trials carry, in order of first appearance. */
  readonly scorers: Array<string> = []
  private readonly index = new Map<string, number>()
  trials = 0
  failed = 0
  /** Trials that did not fail and carry no score. */
  unscored = 0
  /** `InvalidTask` lines (a bad dataset line run with `--on-invalid skip`): left out. */
  invalid = 0
  /** The paths of `metadata.groups`, in order of first appearance. */
  readonly groupPaths: Array<string> = []
  private readonly groupIndex = new Map<string, number>()
  /** Tasks whose first trial carries no `metadata.groups`. */
  ungrouped = 0
  /** Every `metadata.stderr_cluster.by` of its trials, `none` for null or absent, in order of first appearance. */
  readonly clusterBy = new Set<string>()
  /** How many of its trials report usage, and carry a cost. */
  readonly usage = new FileUsage()

  // The run summary's own figures of this file (as the report computes them).
  private readonly figures = new Aggregate({ maxRows: 1, textLimit: 0, buckets: 2 })

  constructor(file: string) {
    this.file = file
  }

  /** The file's figures as `run --summary` gives them under `scoring`; null without scores. */
  scoring(): Summary.ScoringSummary | null {
    const { acc } = this.figures.result()
    return Summary.make({
      runId: "",
      resultsFile: this.file,
      outcome: "finished",
      acc,
      probe: new MutableProbe().snapshot(),
      wallMs: 0,
      parallelism: 0
    }).scoring ?? null
  }

  /**
   * Adds the trial of line `line`; a message when its file holds more
   * scorers than a mask has bits, or its groups or cluster are malformed.
   */
  add(trial: AgentEvalTrial, line: number): string | undefined {
    const { groups: values, group_keys: keys, stderr_cluster: cluster } = trial.metadata
    if (values !== undefined && !isGroups(values)) return `${this.file}:${line}: ${groupsProblem("groups", values)}`
    if (keys !== undefined && !isGroups(keys)) return `${this.file}:${line}: ${groupsProblem("group_keys", keys)}`
    // Grouped by the values' JSON text (`Labels.groupKeysOf`); by the values on older records.
    const groups = keys ?? values
    if (cluster !== undefined && !isCluster(cluster)) {
      return `${this.file}:${line}: metadata.stderr_cluster must be null or { "by": PATH, "value": text or null }, ` +
        `got ${shown(cluster)}`
    }
    this.figures.add(trial)
    if (trial.status === "failed" && trial.error?.type === "InvalidTask") {
      this.invalid++
      return undefined
    }
    this.trials++
    this.clusterBy.add(cluster?.by ?? NONE)
    let task = this.tasks.get(trial.task_id)
    if (task === undefined) {
      task = {
        trials: 0,
        completed: 0,
        failed: 0,
        scores: EMPTY,
        outcomes: EMPTY,
        groups: groups === undefined ? undefined : this.groupsOf(groups),
        cluster: cluster?.value,
        usage: NO_USAGE
      }
      if (groups === undefined) this.ungrouped++
      this.tasks.set(trial.task_id, task)
    }
    task.trials++
    // Before the failed trials leave: a failed trial's attempts spent tokens too.
    task.usage = this.usage.add(task.usage, trial)
    if (trial.status === "failed") {
      this.failed++
      task.failed++
      return undefined
    }
    if (trial.status === "completed") task.completed++
    let carried = 0
    let ok = 0
    const scores = trial.scores ?? {}
    for (const name in scores) {
      const score = scores[name]
      let i = this.index.get(name)
      if (i === undefined) {
        if (this.scorers.length >= MAX_SCORERS) {
          return `${this.file}: more than ${MAX_SCORERS} scorers (${name} is one too many): compare at most ${MAX_SCORERS}`
        }
        i = this.scorers.length
        this.scorers.push(name)
        this.index.set(name, i)
      }
      if (task.scores.length < 3 * (i + 1)) task.scores = grown(task.scores, 3 * (i + 1))
      task.scores[3 * i] += score.value
      task.scores[3 * i + 1]++
      carried |= 1 << i
      if (score.passed && score.error === undefined) {
        task.scores[3 * i + 2]++
        ok |= 1 << i
      }
    }
    if (carried === 0) this.unscored++
    const o = task.outcomes
    for (let j = 0; j < o.length; j += 3) {
      if (o[j] === carried && o[j + 1] === ok) {
        o[j + 2]++
        return undefined
      }
    }
    task.outcomes = o.concat(carried, ok, 1)
    return undefined
  }

  // A task's group values by path index: an array of exactly the paths known so far.
  private groupsOf(groups: typeof GroupsMetadata.Type): Array<string | null | undefined> {
    for (const path in groups) {
      if (!this.groupIndex.has(path)) {
        this.groupIndex.set(path, this.groupPaths.length)
        this.groupPaths.push(path)
      }
    }
    const values = new Array<string | null | undefined>(this.groupPaths.length).fill(undefined)
    for (const path in groups) values[this.groupIndex.get(path)!] = groups[path]
    return values
  }

  /** A task's value at group path `path` (undefined: the task's first trial is not grouped by it). */
  groupOf(task: TaskTally, path: string): string | null | undefined {
    const i = this.groupIndex.get(path)
    return i === undefined ? undefined : task.groups?.[i]
  }

  /** The mask of these scorers in this file (every one of them must be the file's). */
  maskOf(names: ReadonlyArray<string>): number {
    let mask = 0
    for (const name of names) mask |= 1 << this.index.get(name)!
    return mask
  }

  /**
   * A task's value for a scorer: the mean over its trials that carry the
   * scorer or failed (a failed trial is 0); `undefined` when it has none.
   */
  valueOf(task: TaskTally, scorer: string): number | undefined {
    const i = this.index.get(scorer)
    if (i === undefined) return undefined
    const sum = task.scores[3 * i] ?? 0
    const n = (task.scores[3 * i + 1] ?? 0) + task.failed
    return n === 0 ? undefined : sum / n
  }

  /**
   * A task's trials that count for the pass rule `mask` (failed ones, and
   * those that carry every scorer of the rule), and how many of them passed
   * every scorer of the rule. `mask` undefined: a pass is a completed trial.
   */
  passesOf(task: TaskTally, mask: number | undefined): { readonly counted: number; readonly passed: number } {
    if (mask === undefined) return { counted: task.trials, passed: task.completed }
    let counted = task.failed
    let passed = 0
    const o = task.outcomes
    for (let j = 0; j < o.length; j += 3) {
      if ((o[j] & mask) === mask) counted += o[j + 2]
      if ((o[j + 1] & mask) === mask) passed += o[j + 2]
    }
    return { counted, passed }
  }
}

/**
 * Reads a results file into a tally, a line at a time. A missing file, a bad
 * line (named by file and line) or a file without trials is a
 * `CompareInputError`.
 *
 * @internal
 */
export const tally = (file: string): Effect.Effect<FileTally, CompareInputError, FileSystem.FileSystem | Registry> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const { stores } = yield* Registry
    const info = yield* Effect.option(fs.stat(file))
    if (info._tag === "None" || info.value.type !== "File") {
      return yield* new CompareInputError({ message: `results file not found: ${file}` })
    }
    const result = new FileTally(file)
    yield* ResultsStores.storeOf(file, stores).read(file).pipe(
      Stream.mapError((e) => CompareInputError.from(e)),
      Stream.runForEach(({ line, trial }) => {
        const problem = result.add(trial, line)
        return problem === undefined ? Effect.void : Effect.fail(new CompareInputError({ message: problem }))
      })
    )
    if (result.tasks.size === 0) {
      return yield* new CompareInputError({ message: `${file} holds no trials` })
    }
    return result
  })
