/**
 * A trial's workspace: a fresh directory, `<root>/<run-id>/<trial-id>`,
 * seeded from a folder (copied) and from the task's `files`
 * (`{ "relative/path": "content" }`), removed once the trial is scored. A
 * path that would leave the workspace (`..`, absolute, through a link) is
 * the task's fault: `InvalidTask` of that trial.
 *
 * @since 0.9.0
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { InvalidTask } from "../domain/Errors.ts"
import type { AgentEvalTask } from "../domain/Trial.ts"

/**
 * A workspace could not be made, seeded or removed: `path` is the directory
 * or file, `problem` what the file system said.
 *
 * @category errors
 * @since 0.9.0
 */
export class WorkspaceError extends Schema.TaggedError<WorkspaceError>()("WorkspaceError", {
  path: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `workspace ${this.path}: ${this.problem}`
  }
}

const problemOf = (e: unknown): string => String((e as { message?: unknown })?.message ?? e)

const attempt = <A>(at: string, f: () => Promise<A>): Effect.Effect<A, WorkspaceError> =>
  Effect.tryPromise({ try: f, catch: (e) => new WorkspaceError({ path: at, problem: problemOf(e) }) })

/**
 * A run or trial id as one directory name: a byte that a name cannot hold
 * (`/`, `\`, NUL, `%`) and a name of only dots are %-escaped, so two ids
 * never share a directory.
 *
 * @category paths
 * @since 0.9.0
 */
export const safeName = (id: string): string => {
  const escaped = id.replace(/[/\\\0%]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`)
  return /^\.*$/.test(escaped) ? escaped.replace(/\./g, "%2e") || "%" : escaped
}

/**
 * The folder of one run's workspaces.
 *
 * @category paths
 * @since 0.9.0
 */
export const runDir = (root: string, runId: string): string => path.join(root, safeName(runId))

/**
 * The workspace of one trial of a run.
 *
 * @category paths
 * @since 0.9.0
 */
export const trialDir = (root: string, runId: string, trialId: string): string =>
  path.join(runDir(root, runId), safeName(trialId))

/**
 * The task's `files`, checked: an object of relative paths inside the
 * workspace to text; anything else is the problem, as `InvalidTask` words it.
 *
 * @category seeding
 * @since 0.9.0
 */
export const taskFiles = (task: AgentEvalTask): ReadonlyArray<readonly [string, string]> | string => {
  const files = task.files
  if (files === undefined) return []
  if (files === null || typeof files !== "object" || Array.isArray(files)) {
    return "files: expected an object of relative paths to text ({\"relative/path\": \"content\"})"
  }
  const out: Array<readonly [string, string]> = []
  for (const [name, content] of Object.entries(files)) {
    const problem = relativeProblem(name)
    if (problem !== undefined) return `files: ${JSON.stringify(name)} ${problem}`
    if (typeof content !== "string") return `files: ${JSON.stringify(name)}: expected text content, got ${typeof content}`
    out.push([name, content])
  }
  return out
}

const relativeProblem = (name: string): string | undefined => {
  if (name === "" || name.includes("\0")) return "is not a path"
  if (path.isAbsolute(name) || /^[A-Za-z]:/.test(name)) return "is absolute: it would leave the workspace"
  if (name.split(/[/\\]/).includes("..")) return "has ..: it would leave the workspace"
  return undefined
}

// Refuses a write through a link: every existing folder on the way must be a
// real folder inside the workspace, and the file itself must not be a link.
const checkNoLink = (dir: string, name: string): Effect.Effect<string | undefined, WorkspaceError> =>
  attempt(dir, async () => {
    const parts = name.split(/[/\\]/).filter((p) => p !== "" && p !== ".")
    let at = dir
    for (const part of parts) {
      at = path.join(at, part)
      const stat = await fs.lstat(at).catch((e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT") return undefined
        throw e
      })
      if (stat === undefined) return undefined
      if (stat.isSymbolicLink()) return `files: ${JSON.stringify(name)} goes through a link: it would leave the workspace`
    }
    return undefined
  })

/**
 * Makes the trial's directory (empty: a stale one of an earlier attempt is
 * removed first), copies `from` into it (links are copied as links, never
 * followed out), then writes the task's files. A bad `files` fails with
 * `InvalidTask` naming the path.
 *
 * @category lifecycle
 * @since 0.9.0
 */
export const make = (
  dir: string,
  options: { readonly from?: string | undefined; readonly task: AgentEvalTask }
): Effect.Effect<void, WorkspaceError | InvalidTask> =>
  Effect.gen(function*() {
    yield* attempt(dir, async () => {
      await fs.rm(dir, { recursive: true, force: true })
      await fs.mkdir(dir, { recursive: true })
    })
    const from = options.from
    if (from !== undefined) {
      yield* attempt(from, () => fs.cp(from, dir, { recursive: true, verbatimSymlinks: true, force: true }))
    }
    // Checked once the directory exists, so a kept workspace of a bad task is there to look at.
    const files = taskFiles(options.task)
    if (typeof files === "string") return yield* new InvalidTask({ task_id: options.task.id, problem: files })
    for (const [name, content] of files) {
      const link = yield* checkNoLink(dir, name)
      if (link !== undefined) return yield* new InvalidTask({ task_id: options.task.id, problem: link })
      const file = path.join(dir, name)
      yield* attempt(file, async () => {
        await fs.mkdir(path.dirname(file), { recursive: true })
        await fs.writeFile(file, content)
      })
    }
  })

/**
 * Removes a workspace and all it holds; a missing one is not an error.
 *
 * @category lifecycle
 * @since 0.9.0
 */
export const remove = (dir: string): Effect.Effect<void, WorkspaceError> =>
  attempt(dir, () => fs.rm(dir, { recursive: true, force: true, maxRetries: 2 }))

/** The file that marks a run's folder as owned by a process: `agent-trials pid N`. */
const OWNER = ".agent-trials-owner"
const MARK = "agent-trials pid "

/**
 * Marks the run's folder as this process's (its pid in `.agent-trials-owner`), so a
 * later run can tell the folder of a killed run from one still running.
 *
 * @category lifecycle
 * @since 0.9.0
 */
export const claim = (root: string, runId: string): Effect.Effect<void, WorkspaceError> => {
  const dir = runDir(root, runId)
  return attempt(dir, async () => {
    await fs.mkdir(dir, { recursive: true })
    await fs.writeFile(path.join(dir, OWNER), `${MARK}${process.pid}\n`)
  })
}

/**
 * Unmarks the run's folder at its end, and removes it once empty: what is
 * left (kept workspaces) is the user's, never stale.
 *
 * @category lifecycle
 * @since 0.9.0
 */
export const unclaim = (root: string, runId: string): Effect.Effect<void> => {
  const dir = runDir(root, runId)
  return Effect.promise(async () => {
    await fs.rm(path.join(dir, OWNER), { force: true }).catch(() => undefined)
    await fs.rmdir(dir).catch(() => undefined)
  })
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: a process of another user has it, so it lives.
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * A run folder a killed run left: the folder and its workspaces.
 *
 * @category models
 * @since 0.9.0
 */
export interface Stale {
  readonly dir: string
  readonly workspaces: number
}

/**
 * Removes what killed runs left under `root` (a kill -9 skips every
 * finalizer): each run folder marked by a process that is gone, with its
 * workspaces. Folders without the mark (another program's, or kept
 * workspaces of a run that ended) are never touched.
 *
 * @category lifecycle
 * @since 0.9.0
 */
export const removeStale = (root: string): Effect.Effect<ReadonlyArray<Stale>, WorkspaceError> =>
  attempt(root, async () => {
    const entries = await fs.readdir(root).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return [] as Array<string>
      throw e
    })
    const stale: Array<Stale> = []
    for (const entry of entries) {
      const dir = path.join(root, entry)
      const owner = await fs.readFile(path.join(dir, OWNER), "utf8").catch(() => undefined)
      // Only our own mark counts: a folder of another program is never touched.
      const pid = owner === undefined || !owner.startsWith(MARK) ? NaN : Number(owner.slice(MARK.length).trim())
      if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue
      const workspaces = (await fs.readdir(dir)).filter((name) => name !== OWNER).length
      await fs.rm(dir, { recursive: true, force: true, maxRetries: 2 })
      stale.push({ dir, workspaces })
    }
    return stale
  })
