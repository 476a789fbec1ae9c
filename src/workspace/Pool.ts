/**
 * One run's workspaces: at most `parallelism` live at once. A trial takes a
 * slot when it is admitted (before its first call), its workspace is made,
 * seeded and set up there, and the slot is given back once the trial is
 * scored and its workspace removed (or kept). So a run never holds more
 * workspaces than trials in its bound, however far scoring lags behind.
 *
 * `live` and `peak` are the counts the bound speaks of; tests, the summary
 * and the gate test read them here.
 *
 * @since 0.9.0
 */
import { type Duration, Effect, Semaphore } from "effect"
import type { InvalidTask } from "../domain/Errors.ts"
import { type AgentEvalTask, type AgentEvalTrial, trialId } from "../domain/Trial.ts"
import * as Placeholders from "./Placeholders.ts"
import * as Setup from "./Setup.ts"
import * as Workspace from "./Workspace.ts"

/**
 * Which workspaces outlive their trial: none, all, or those of failed
 * trials (a failed trial, or a score that did not pass).
 *
 * @category models
 * @since 0.9.0
 */
export type Keep = "none" | "all" | "failed"

/**
 * What the pool does to the file system, and how it runs `--setup`: the
 * real file system (`nodeOps`, with the run's way of running a command),
 * or an in-memory one in tests that count without touching disk.
 *
 * @category models
 * @since 0.9.0
 */
export interface Ops {
  readonly make: (dir: string, options: { readonly from?: string | undefined; readonly task: AgentEvalTask }) => Effect.Effect<void, Workspace.WorkspaceError | InvalidTask>
  readonly setup: (command: string, dir: string, timeout: Duration.Duration | undefined) => Effect.Effect<void, Setup.SetupFailed>
  readonly remove: (dir: string) => Effect.Effect<void, Workspace.WorkspaceError>
}

/**
 * The file system's operations, with `setup` running `--setup` (the run's
 * sandbox setting does: the sandbox is above this folder).
 *
 * @category constructors
 * @since 0.9.0
 */
export const nodeOps = (setup: Ops["setup"]): Ops => ({ make: Workspace.make, setup, remove: Workspace.remove })

/**
 * Options of `make`.
 *
 * @category models
 * @since 0.9.0
 */
export interface Options {
  /** `--workspace-dir`: the workspaces go under `<root>/<run-id>/`. */
  readonly root: string
  readonly runId: string
  /** Workspaces live at once, at most (the run's `--parallelism`). */
  readonly parallelism: number
  /** `--workspace-from`: a folder copied into each. */
  readonly from?: string | undefined
  /** `--setup`: run inside each once seeded (placeholders expanded). */
  readonly setup?: string | undefined
  readonly setupTimeout?: Duration.Duration | undefined
  readonly keep?: Keep | undefined
  /** `nodeOps(setup)` for workspaces on disk. */
  readonly ops: Ops
}

/**
 * A run's workspaces.
 *
 * @category models
 * @since 0.9.0
 */
export interface Pool {
  /** Workspaces that exist now (made, or being made, and not yet removed). */
  readonly live: () => number
  readonly peak: () => number
  /** Workspaces made, and removed, so far. */
  readonly made: () => number
  readonly removed: () => number
  /** The workspaces kept (`keep`), in the order their trials ended. */
  readonly kept: () => ReadonlyArray<string>
  /**
   * Takes a slot (waiting while `parallelism` are live), then makes, seeds
   * and sets up the unit's workspace; its path. The slot is held until
   * `release` of the trial (or the pool's scope ends).
   */
  readonly admit: (
    task: AgentEvalTask,
    epoch: number | undefined
  ) => Effect.Effect<string, Workspace.WorkspaceError | InvalidTask | Setup.SetupFailed>
  /** After the trial is scored: removes (or keeps) its workspace and frees its slot; nothing when it has none. */
  readonly release: (trial: AgentEvalTrial) => Effect.Effect<void, Workspace.WorkspaceError>
}

const isFailed = (trial: AgentEvalTrial): boolean =>
  trial.status === "failed" || Object.values(trial.scores ?? {}).some((s) => !s.passed)

/**
 * A pool in the current scope. Its scope's end removes the workspaces of
 * trials that never reached `release` (an interrupted run), unless `keep`
 * is `all`, then the run's folder if it is empty.
 *
 * @category constructors
 * @since 0.9.0
 */
export const make = (options: Options) =>
  Effect.gen(function*() {
    const ops = options.ops
    // Workspaces on disk: the run's folder is marked as this process's while it runs.
    const onDisk = ops.make === Workspace.make
    const keep = options.keep ?? "none"
    const slots = yield* Semaphore.make(options.parallelism)
    const open = new Map<string, string>()
    const kept: Array<string> = []
    let live = 0
    let peak = 0
    let made = 0
    let removed = 0

    const free = (id: string, dir: string, keepIt: boolean) =>
      Effect.gen(function*() {
        if (!open.delete(id)) return
        if (keepIt) kept.push(dir)
        else {
          yield* ops.remove(dir)
          removed++
        }
        live--
        yield* slots.release(1)
      })

    if (onDisk) yield* Workspace.claim(options.root, options.runId)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        for (const [id, dir] of [...open]) yield* Effect.ignore(free(id, dir, keep === "all"))
        if (onDisk) yield* Workspace.unclaim(options.root, options.runId)
      })
    )

    const admit: Pool["admit"] = (task, epoch) =>
      Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
        const id = trialId(task.id, epoch)
        yield* restore(slots.take(1))
        // Registered at once with its slot: an interruption from here on
        // leaves it to the scope's end to remove.
        const dir = Workspace.trialDir(options.root, options.runId, id)
        open.set(id, dir)
        if (++live > peak) peak = live
        made++
        yield* restore(prepare(dir, id, task, epoch))
        return dir
      }))

    const prepare = (dir: string, id: string, task: AgentEvalTask, epoch: number | undefined) =>
      Effect.gen(function*() {
        yield* ops.make(dir, { from: options.from, task })
        const setup = options.setup
        if (setup === undefined) return
        const expanded = Placeholders.expand(setup, { workspace: dir, trial_id: id, task_id: task.id, epoch, task })
        if ("problem" in expanded) {
          return yield* new Setup.SetupFailed({ command: setup, exit_code: null, reason: expanded.problem, last_lines: [] })
        }
        yield* ops.setup(expanded.text, dir, options.setupTimeout)
      })

    const pool: Pool = {
      live: () => live,
      peak: () => peak,
      made: () => made,
      removed: () => removed,
      kept: () => kept,
      admit,
      release: (trial) => {
        const dir = open.get(trial.id)
        return dir === undefined
          ? Effect.void
          : free(trial.id, dir, keep === "all" || (keep === "failed" && isFailed(trial)))
      }
    }
    return pool
  })
