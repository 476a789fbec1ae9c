/**
 * The index of one results file: built in one streamed pass and kept up to
 * date by reading only the bytes appended since (`refresh`), never the whole
 * file again. Per trial it holds a few numbers (the line's byte offset and
 * length, its status, its scorers' verdicts as bit masks, its group values
 * as small ids), not the record: a page of trials is read back from the file
 * by offset (`page`). The report's figures (`Aggregate`) are fed by the same
 * pass, so the run page shows the whole file without reading it again.
 *
 * @since 0.7.0
 */
import { Effect, Schema, Semaphore } from "effect"
import * as fs from "node:fs/promises"
import type { AgentEvalTrial } from "../domain/Trial.ts"
import * as Usages from "../domain/Usage.ts"
import * as Aggregate from "../report/Aggregate.ts"

/**
 * A results file the view cannot read (gone, unreadable): names the file
 * and the operating system's reason.
 *
 * @category errors
 * @since 0.7.0
 */
export class IndexError extends Schema.TaggedError<IndexError>()("IndexError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `${this.file}: ${this.problem}`
  }
}

/** Bytes read per chunk, when building and when tailing. */
const CHUNK = 1 << 20
/** Scorers whose verdicts are indexed (bit masks of 32). */
const MAX_SCORERS = 32
/** Distinct values per group path kept; a later one is not filterable. */
const MAX_GROUP_VALUES = 10_000

// FNV-1a of a trial id: `find` reads only the lines whose id hashes alike.
const hashOf = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

const STATUS = { completed: 0, failed: 1, partial: 2 } as const
type Status = keyof typeof STATUS
const STATUS_NAMES: ReadonlyArray<Status> = ["completed", "failed", "partial"]

/**
 * What trials a page keeps: by status, by one scorer's verdict, by one
 * group's value, by text in the record.
 *
 * @category models
 * @since 0.7.0
 */
export interface Filter {
  readonly status?: Status | undefined
  readonly scorer?: { readonly name: string; readonly passed: boolean } | undefined
  readonly group?: { readonly path: string; readonly value: string } | undefined
  readonly q?: string | undefined
}

/**
 * The figures of a file for the list of runs.
 *
 * @category models
 * @since 0.7.0
 */
export interface Figures {
  readonly trials: number
  readonly completed: number
  readonly failed: number
  readonly passed: number
  readonly costUsd: number | null
  readonly firstStartedAt: string | null
  readonly badLines: number
}

// Growable typed arrays: a few numbers per trial.
class Column<A extends Float64Array | Uint32Array | Uint8Array> {
  data: A
  private readonly make: (n: number) => A
  constructor(data: A, make: (n: number) => A) {
    this.data = data
    this.make = make
  }
  set(i: number, v: number): void {
    if (i >= this.data.length) {
      const next = this.make(Math.max(1024, this.data.length * 2))
      next.set(this.data)
      this.data = next
    }
    this.data[i] = v
  }
}
const f64 = () => new Column(new Float64Array(1024), (n) => new Float64Array(n))
const u32 = () => new Column(new Uint32Array(1024), (n) => new Uint32Array(n))
const u8 = () => new Column(new Uint8Array(1024), (n) => new Uint8Array(n))

/**
 * The index of `file`. Build it with `open`; `refresh` reads what was
 * appended since and returns how many trials it added.
 *
 * @category models
 * @since 0.7.0
 */
export class FileIndex {
  /** Trials indexed. */
  count = 0
  /** Bytes read so far (up to the end of the last whole line). */
  size = 0
  /** The last time the file was seen to grow (ms since the epoch), from its mtime. */
  modifiedMs = 0
  private readonly offsets = f64()
  private readonly lengths = u32()
  private readonly statuses = u8()
  private readonly passedMask = u32()
  private readonly scoredMask = u32()
  private readonly passing = u8()
  /** Scorer names by bit. */
  readonly scorers: Array<string> = []
  private readonly idHashes = u32()
  /** Group path -> (value -> id), and each trial's id + 1 (0: none, or a value past the first MAX_GROUP_VALUES). */
  private readonly groupValues = new Map<string, Map<string, number>>()
  private readonly groupIds = new Map<string, Column<Uint32Array>>()
  private completed = 0
  private failed = 0
  private passed = 0
  private cost: number | null = null
  private firstStartedAt: string | null = null
  private badLines = 0
  private aggregate: Aggregate.Aggregate
  private readonly lock = Semaphore.makeUnsafe(1)

  readonly file: string

  constructor(file: string) {
    this.file = file
    this.aggregate = FileIndex.freshAggregate()
  }

  private static freshAggregate(): Aggregate.Aggregate {
    return new Aggregate.Aggregate({ maxRows: 1 })
  }

  /** The report's figures over every trial indexed (its table of one row is not shown). */
  report(): Aggregate.Result {
    return this.aggregate.result()
  }

  /** The figures `GET /api/runs` shows. */
  figures(): Figures {
    return {
      trials: this.count,
      completed: this.completed,
      failed: this.failed,
      passed: this.passed,
      costUsd: this.cost,
      firstStartedAt: this.firstStartedAt,
      badLines: this.badLines
    }
  }

  /** The values seen of each group path (at most `MAX_GROUP_VALUES` each). */
  groups(): ReadonlyMap<string, ReadonlyArray<string>> {
    return new Map([...this.groupValues].map(([path, values]) => [path, [...values.keys()]]))
  }

  /**
   * Reads the bytes appended since the last call (the whole file the first
   * time; the whole file again only when it shrank, a file replaced) and
   * indexes each whole line; a line not yet ended waits for its newline.
   * Returns the offsets of the trials added, oldest first.
   */
  refresh(): Effect.Effect<ReadonlyArray<number>, IndexError> {
    // One refresh at a time per file (two would index the same bytes twice); other files are not held up.
    return this.lock.withPermit(this.attempt(() => this.readAppended()))
  }

  // Everything indexed so far is dropped (the lock held by the refresh under way stays).
  private reset(): void {
    Object.assign(this, { ...new FileIndex(this.file), lock: this.lock })
  }

  private async readAppended(): Promise<ReadonlyArray<number>> {
    const handle = await fs.open(this.file, "r")
    try {
      const stat = await handle.stat()
      if (stat.size < this.size) this.reset()
      this.modifiedMs = stat.mtimeMs
      const added: Array<number> = []
      let position = this.size
      let carry: Buffer = Buffer.alloc(0)
      while (position < stat.size) {
        const want = Math.min(CHUNK, stat.size - position)
        const chunk = Buffer.allocUnsafe(want)
        const { bytesRead } = await handle.read(chunk, 0, want, position)
        if (bytesRead === 0) break
        const buffer = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)])
        const base = position - carry.length
        let start = 0
        for (let nl = buffer.indexOf(10, start); nl !== -1; nl = buffer.indexOf(10, start)) {
          if (nl > start) this.addLine(buffer, start, nl, base + start, added)
          start = nl + 1
        }
        carry = Buffer.from(buffer.subarray(start))
        position += bytesRead
        this.size = base + start
      }
      return added
    } finally {
      await handle.close()
    }
  }

  private addLine(buffer: Buffer, start: number, end: number, offset: number, added: Array<number>): void {
    let record: AgentEvalTrial
    try {
      record = JSON.parse(buffer.toString("utf8", start, end)) as AgentEvalTrial
    } catch {
      this.badLines++
      return
    }
    if (
      record === null || typeof record !== "object" || typeof record.id !== "string" ||
      typeof record.task_id !== "string" || !(record.status in STATUS) || typeof record.metadata !== "object"
    ) {
      this.badLines++
      return
    }
    const i = this.count++
    this.offsets.set(i, offset)
    this.lengths.set(i, end - start)
    this.statuses.set(i, STATUS[record.status])
    this.idHashes.set(i, hashOf(record.id))
    let passed = 0
    let scored = 0
    let allPassed = record.status === "completed"
    for (const [name, score] of Object.entries(record.scores ?? {})) {
      if (!score.passed || score.error !== undefined) allPassed = false
      let bit = this.scorers.indexOf(name)
      if (bit === -1 && this.scorers.length < MAX_SCORERS) bit = this.scorers.push(name) - 1
      if (bit === -1) continue
      scored |= 1 << bit
      if (score.passed && score.error === undefined) passed |= 1 << bit
    }
    this.passedMask.set(i, passed >>> 0)
    this.scoredMask.set(i, scored >>> 0)
    this.passing.set(i, allPassed ? 1 : 0)
    for (const [path, value] of Object.entries(record.metadata.groups ?? {})) this.setGroup(i, path, String(value))
    if (record.status === "completed") this.completed++
    else if (record.status === "failed") this.failed++
    if (allPassed) this.passed++
    const usage = Usages.ofTrial(record)
    const judges = Usages.ofScores(record)
    const cost = (usage?.cost_usd ?? 0) + (judges?.cost_usd ?? 0)
    if (usage?.cost_usd !== undefined || judges?.cost_usd !== undefined) this.cost = (this.cost ?? 0) + cost
    const started = record.metadata.started_at
    if (typeof started === "string" && (this.firstStartedAt === null || started < this.firstStartedAt)) this.firstStartedAt = started
    this.aggregate.add(record)
    added.push(offset)
  }

  private setGroup(i: number, path: string, value: string): void {
    let values = this.groupValues.get(path)
    let ids = this.groupIds.get(path)
    if (values === undefined || ids === undefined) {
      values = new Map()
      ids = u32()
      this.groupValues.set(path, values)
      this.groupIds.set(path, ids)
    }
    let id = values.get(value)
    if (id === undefined && values.size < MAX_GROUP_VALUES) values.set(value, id = values.size)
    ids.set(i, id === undefined ? 0 : id + 1)
  }

  /** Whether trial `i` passes the index's part of `filter` (all but `q`). */
  private keeps(i: number, filter: Filter): boolean {
    if (filter.status !== undefined && this.statuses.data[i] !== STATUS[filter.status]) return false
    if (filter.scorer !== undefined) {
      const bit = this.scorers.indexOf(filter.scorer.name)
      if (bit === -1 || (this.scoredMask.data[i]! & (1 << bit)) === 0) return false
      if (((this.passedMask.data[i]! & (1 << bit)) !== 0) !== filter.scorer.passed) return false
    }
    if (filter.group !== undefined) {
      const id = this.groupValues.get(filter.group.path)?.get(filter.group.value)
      const ids = this.groupIds.get(filter.group.path)
      if (id === undefined || ids === undefined || i >= ids.data.length || ids.data[i] !== id + 1) return false
    }
    return true
  }

  /** The status of trial `i`. */
  statusOf(i: number): Status {
    return STATUS_NAMES[this.statuses.data[i]!]!
  }

  /**
   * Trials `offset` to `offset + limit` of those `filter` keeps, in file
   * order, and how many it keeps: only the lines of the page are read (a
   * text filter reads the lines the other filters keep, one at a time, and
   * holds none).
   */
  page(offset: number, limit: number, filter: Filter): Effect.Effect<{ total: number; trials: Array<unknown> }, IndexError> {
    return this.attempt(() => this.readPage(offset, limit, filter))
  }

  private async readPage(offset: number, limit: number, filter: Filter) {
    const trials: Array<unknown> = []
    let total = 0
    const q = filter.q === undefined || filter.q === "" ? undefined : filter.q.toLowerCase()
    const kept = function*(self: FileIndex) {
      for (let i = 0; i < self.count; i++) if (self.keeps(i, filter)) yield i
    }
    if (q === undefined) {
      // Only the page's lines are read: the rest are counted from the index.
      const page: Array<number> = []
      for (const i of kept(this)) if (total++ >= offset && page.length < limit) page.push(i)
      await this.lines(page, (_, line) => void trials.push(JSON.parse(line)))
      return { total, trials }
    }
    await this.lines(kept(this), (_, line) => {
      if (!line.toLowerCase().includes(q)) return
      if (total >= offset && trials.length < limit) trials.push(JSON.parse(line))
      total++
    })
    return { total, trials }
  }

  // Reads the lines of trials `indexes` by offset, one at a time, each handed to `visit`.
  private async lines(indexes: Iterable<number>, visit: (i: number, line: string) => void): Promise<void> {
    const handle = await fs.open(this.file, "r")
    try {
      for (const i of indexes) {
        const length = this.lengths.data[i]!
        const buffer = Buffer.allocUnsafe(length)
        await handle.read(buffer, 0, length, this.offsets.data[i]!)
        visit(i, buffer.toString("utf8"))
      }
    } finally {
      await handle.close()
    }
  }

  private attempt<A>(f: () => Promise<A>): Effect.Effect<A, IndexError> {
    return Effect.tryPromise({ try: f, catch: (e) => new IndexError({ file: this.file, problem: (e as Error).message }) })
  }

  /** The records at these byte offsets (from `refresh`), read back from the file. */
  recordsAt(offsets: ReadonlyArray<number>): Effect.Effect<Array<unknown>, IndexError> {
    const wanted = new Set(offsets)
    const indexes: Array<number> = []
    for (let i = this.count - 1; i >= 0 && indexes.length < wanted.size; i--) {
      if (wanted.has(this.offsets.data[i]!)) indexes.push(i)
    }
    return this.readIndexes(indexes.reverse())
  }

  /** The last record whose `id` is `id` (a trial run again is its latest): only the lines whose id hashes alike are read. */
  find(id: string): Effect.Effect<unknown | undefined, IndexError> {
    const hash = hashOf(id)
    const candidates: Array<number> = []
    for (let i = 0; i < this.count; i++) if (this.idHashes.data[i] === hash) candidates.push(i)
    return this.readIndexes(candidates).pipe(
      Effect.map((records) => records.findLast((r) => (r as { id?: unknown }).id === id))
    )
  }

  /**
   * The records of the tasks `ids`, by task id, in file order: one pass over
   * the file's lines by offset, parsing only those that name one of them.
   */
  byTask(ids: ReadonlySet<string>): Effect.Effect<Map<string, Array<AgentEvalTrial>>, IndexError> {
    const needles = [...ids].map((id) => JSON.stringify(id))
    const all = function*(count: number) { for (let i = 0; i < count; i++) yield i }
    return this.attempt(async () => {
      const out = new Map<string, Array<AgentEvalTrial>>()
      if (ids.size === 0) return out
      await this.lines(all(this.count), (_, line) => {
        if (!needles.some((n) => line.includes(n))) return
        const record = JSON.parse(line) as AgentEvalTrial
        if (ids.has(record.task_id)) out.set(record.task_id, [...(out.get(record.task_id) ?? []), record])
      })
      return out
    })
  }

  private readIndexes(indexes: ReadonlyArray<number>): Effect.Effect<Array<unknown>, IndexError> {
    return this.attempt(async () => {
      const out: Array<unknown> = []
      await this.lines(indexes, (_, line) => void out.push(JSON.parse(line)))
      return out
    })
  }
}
