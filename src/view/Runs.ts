/**
 * The runs under a folder: every results file (`*.jsonl`) found by a
 * recursive walk (matrix folders included; hidden folders, `node_modules`
 * and symbolic links are not followed, so nothing outside the folder is
 * reached), each known by its KEY (its path under the folder without
 * `.jsonl`, `/`-separated) and indexed once (`Index.FileIndex`), then
 * refreshed by what was appended. A KEY is only ever looked up among the
 * files found, never joined to a path: a `..` or an encoded one names no run.
 *
 * @since 0.7.0
 */
import { Clock, Effect, Semaphore } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as End from "../programs/run/End.ts"
import * as Statistics from "../statistics/Statistics.ts"
import { FileIndex, type IndexError } from "./Index.ts"

/** Folders deep the walk goes at most. */
const MAX_DEPTH = 8
/** A run that left no end marker and whose file has not grown for this long is no longer running. */
export const IDLE_MS = 30_000

/**
 * One run as `GET /api/runs` lists it (the fields are a contract).
 *
 * @category models
 * @since 0.7.0
 */
export interface RunEntry {
  readonly key: string
  readonly run_id: string | null
  readonly started_at: string | null
  readonly agent: string | null
  readonly model: string | null
  readonly dataset: string | null
  readonly trials: number
  readonly total: number | null
  readonly pass_rate: number | null
  readonly pass_rate_ci95: readonly [number, number] | null
  readonly cost_usd: number | null
  readonly status: "running" | "finished" | "stopped"
  /** How the run ended, as its end marker says (`finished`, `interrupted`, `max_cost_reached`, ...); null while it runs or when it left none. */
  readonly outcome: string | null
}

interface Definition {
  readonly run_id?: unknown
  readonly written_at?: unknown
  readonly agent?: unknown
  readonly model?: unknown
  readonly epochs?: unknown
  readonly rows?: unknown
  readonly dataset?: Record<string, unknown>
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : null)

const datasetText = (d: Definition["dataset"]): string | null => {
  if (d === undefined || d === null || typeof d !== "object") return null
  if (typeof d["synthetic"] === "number") return `synthetic ${d["synthetic"]}`
  if (typeof d["tasks"] === "string") return d["tasks"]
  return null
}

// The trials a run means to make, when its definition tells: synthetic tasks times epochs, all rows.
const totalOf = (d: Definition | undefined): number | null => {
  if (d === undefined || d.rows !== "all") return null
  const tasks = d.dataset?.["synthetic"]
  const epochs = typeof d.epochs === "number" ? d.epochs : 1
  return typeof tasks === "number" ? tasks * epochs : null
}

/**
 * The runs of `dir`: `list` walks it again (new files appear) and refreshes
 * each index; `get` finds one by KEY.
 *
 * @category models
 * @since 0.7.0
 */
export class Runs {
  private readonly indexes = new Map<string, FileIndex>()
  private readonly lock = Semaphore.makeUnsafe(1)

  readonly dir: string

  constructor(dir: string) {
    this.dir = dir
  }

  /** The results files under the folder, by KEY. */
  private walk(): Effect.Effect<Map<string, string>> {
    const root = this.dir
    return Effect.promise(async () => {
      const found = new Map<string, string>()
      const visit = async (folder: string, depth: number): Promise<void> => {
        let entries: Array<import("node:fs").Dirent>
        try {
          entries = await fs.readdir(folder, { withFileTypes: true })
        } catch {
          return
        }
        for (const entry of entries) {
          const full = path.join(folder, entry.name)
          if (entry.isDirectory()) {
            if (depth < MAX_DEPTH && !entry.name.startsWith(".") && entry.name !== "node_modules") await visit(full, depth + 1)
          } else if (entry.isFile() && entry.name.endsWith(".jsonl")) {
            found.set(path.relative(root, full).split(path.sep).join("/").slice(0, -".jsonl".length), full)
          }
        }
      }
      await visit(root, 0)
      return found
    })
  }

  /** The index of the run `key`, refreshed; undefined when the folder holds no such run. */
  get(key: string): Effect.Effect<FileIndex | undefined, IndexError> {
    // The lock covers finding the file only: a large file's first pass holds up its own requests, not others'.
    const found = this.lock.withPermit(Effect.gen({ self: this }, function*() {
      let index = this.indexes.get(key)
      if (index === undefined) {
        const file = (yield* this.walk()).get(key)
        if (file === undefined) return undefined
        index = new FileIndex(file)
        this.indexes.set(key, index)
      }
      return index
    }))
    return Effect.flatMap(found, (index) => index === undefined ? Effect.succeed(undefined) : Effect.as(index.refresh(), index))
  }

  /** Every run under the folder, newest first, each index refreshed (a file that became unreadable, or holds no trial record but other lines, is left out). */
  list(): Effect.Effect<Array<RunEntry>> {
    return Effect.gen({ self: this }, function*() {
      const files = yield* this.walk()
      const now = yield* Clock.currentTimeMillis
      const out: Array<RunEntry> = []
      for (const key of files.keys()) {
        const index = yield* Effect.option(this.get(key))
        if (index._tag === "None" || index.value === undefined) continue
        // A JSONL file of other things (a tasks file kept beside the runs) is no run.
        if (index.value.count === 0 && index.value.figures().badLines > 0) continue
        out.push(yield* entryOf(key, index.value, now))
      }
      return out.sort((a, b) => (b.started_at ?? "").localeCompare(a.started_at ?? "") || a.key.localeCompare(b.key))
    })
  }
}

/**
 * The definition beside a results file (`FILE.run.json`), when there is one
 * that reads as JSON.
 *
 * @category sources
 * @since 0.7.0
 */
export const definitionOf = (file: string): Effect.Effect<Definition | undefined> =>
  Effect.promise(() =>
    fs.readFile(`${file}.run.json`, "utf8").then(
      (t) => {
        const v: unknown = JSON.parse(t)
        return v !== null && typeof v === "object" ? (v as Definition) : undefined
      },
      () => undefined
    ).catch(() => undefined)
  )

const entryOf = (key: string, index: FileIndex, now: number): Effect.Effect<RunEntry> =>
  Effect.map(Effect.all([definitionOf(index.file), End.read(index.file)]), ([d, marker]) => {
    const end = endMatching(marker, d)
    const f = index.figures()
    const total = totalOf(d)
    const idle = now - index.modifiedMs > IDLE_MS
    const status = statusOf({ end, total, trials: f.trials, idle })
    const ci = Statistics.wilson(f.passed, f.trials)
    return {
      key,
      run_id: text(d?.run_id),
      started_at: f.firstStartedAt ?? text(d?.written_at),
      agent: text(d?.agent),
      model: text(d?.model),
      dataset: datasetText(d?.dataset),
      trials: f.trials,
      total,
      pass_rate: f.trials === 0 ? null : f.passed / f.trials,
      pass_rate_ci95: ci === null ? null : [ci[0], ci[1]],
      cost_usd: f.costUsd,
      status,
      outcome: end?.outcome ?? null
    }
  })

/**
 * How a run ended, from the marker it writes beside its results when it
 * ends (`RESULTS.jsonl.end.json`), when there is one and it is the marker
 * of the run the definition names (a file's run once resumed clears it).
 *
 * @category sources
 * @since 0.9.0
 */
export const endOf = (file: string): Effect.Effect<End.RunEnd | undefined> =>
  Effect.map(Effect.all([End.read(file), definitionOf(file)]), ([end, d]) => endMatching(end, d))

// The marker when it is the run's that the definition names (and its outcome one of ours).
const endMatching = (end: End.RunEnd | undefined, d: Definition | undefined): End.RunEnd | undefined =>
  // Our own outcomes are snake_case words: anything else in such a file is not shown.
  end !== undefined && /^[a-z_]{1,40}$/.test(end.outcome) &&
    (d === undefined || text(d.run_id) === null || text(d.run_id) === end.run_id)
    ? end
    : undefined

/**
 * A run's status: as its end marker says when it has one (`finished`, else
 * `stopped`: interrupted, a budget reached, too many failures ...); without
 * one (killed, or written by an older version), `finished` when it holds
 * all its trials, else `running` while its file grows, then `finished`
 * when its total is unknown and `stopped` when it is not.
 *
 * @category sources
 * @since 0.9.0
 */
export const statusOf = (
  run: { readonly end: End.RunEnd | undefined; readonly total: number | null; readonly trials: number; readonly idle: boolean }
): RunEntry["status"] => {
  if (run.end !== undefined) return run.end.outcome === "finished" ? "finished" : "stopped"
  if (run.total !== null && run.trials >= run.total) return "finished"
  if (!run.idle) return "running"
  return run.total === null ? "finished" : "stopped"
}
