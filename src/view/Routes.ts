/**
 * The view's addresses (a contract): the pages `/`, `/runs/KEY`,
 * `/runs/KEY/trials/TRIAL_ID`, `/compare?base=KEY&new=KEY`, and the JSON
 * `GET /api/runs`, `GET /api/runs/KEY/trials` and the Server-Sent Events of
 * `GET /api/runs/KEY/events`. A KEY is one URL-encoded path segment
 * (`matrix-1%2Fcell-a`), decoded once and looked up among the runs found
 * (`Runs`), never joined to a path. A request whose Host header is not the
 * server's own is refused (403): a page of another site cannot reach it
 * through a name that resolves to 127.0.0.1 (DNS rebinding).
 *
 * @since 0.7.0
 */
import { Effect, Stream } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { FileIndex, Filter } from "./Index.ts"
import * as Pages from "./Pages.ts"
import { endOf, IDLE_MS, type Runs } from "./Runs.ts"
import { compareRuns } from "./Compare.ts"

/** How often the events of a run look for appended bytes. */
export const POLL = "250 millis"
/** Trials one page of the API returns at most. */
export const MAX_LIMIT = 1000
/** Records one poll sends as `event: trial` at most; more are told by `event: progress` alone. */
const MAX_EVENTS_PER_POLL = 500

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } })
const json = (body: unknown, status = 200) =>
  HttpServerResponse.text(JSON.stringify(body), { status, contentType: "application/json", headers: { "cache-control": "no-store" } })
const problem = (status: number, message: string) => json({ error: message }, status)

// One segment, decoded once: a malformed escape names nothing.
const decode = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

const intParam = (params: URLSearchParams, name: string, fallback: number, max: number): number | string => {
  const raw = params.get(name)
  if (raw === null || raw === "") return fallback
  const n = Number(raw)
  return Number.isSafeInteger(n) && n >= 0 && n <= max ? n : `${name} must be an integer from 0 to ${max}, got ${JSON.stringify(raw)}`
}

/**
 * The filter of `GET /api/runs/KEY/trials`: `status=completed|failed|partial`,
 * `scorer=NAME:passed|failed`, `group=PATH=VALUE`, `q=TEXT`; a bad one is
 * its message.
 *
 * @category parsing
 * @since 0.7.0
 */
export const filterOf = (params: URLSearchParams): Filter | string => {
  const status = params.get("status") ?? ""
  if (status !== "" && status !== "completed" && status !== "failed" && status !== "partial") {
    return `status must be completed, failed or partial, got ${JSON.stringify(status)}`
  }
  const scorer = params.get("scorer") ?? ""
  const colon = scorer.lastIndexOf(":")
  const verdict = scorer.slice(colon + 1)
  if (scorer !== "" && (colon < 1 || (verdict !== "passed" && verdict !== "failed"))) {
    return `scorer must be NAME:passed or NAME:failed, got ${JSON.stringify(scorer)}`
  }
  const group = params.get("group") ?? ""
  const eq = group.indexOf("=")
  if (group !== "" && eq < 1) return `group must be PATH=VALUE, got ${JSON.stringify(group)}`
  return {
    ...(status === "" ? {} : { status }),
    ...(scorer === "" ? {} : { scorer: { name: scorer.slice(0, colon), passed: verdict === "passed" } }),
    ...(group === "" ? {} : { group: { path: group.slice(0, eq), value: group.slice(eq + 1) } }),
    ...(params.get("q") ? { q: params.get("q")! } : {})
  }
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

// The events of one run: its progress now, then each poll's new trials and progress, then `end` once it has ended (its marker) or is idle.
const events = (runs: Runs, key: string, index: FileIndex) => {
  // The run's counts, as the events' `progress` data: snake_case, as the API's fields.
  const progress = () => {
    const f = index.figures()
    return { trials: f.trials, completed: f.completed, failed: f.failed, passed: f.passed, cost_usd: f.costUsd, bad_lines: f.badLines }
  }
  // The run's end marker is written after its last trial: read before the file, it means the file read next holds them all.
  const poll = Effect.flatMap(endOf(index.file), (ended) => runs.get(key).pipe(
    // A file that became unreadable (removed, its folder's rights changed) ends the events, saying so.
    Effect.catchTag("IndexError", (e) => Effect.succeed({ unreadable: e.message } as const)),
    Effect.flatMap((fresh) => {
      if (fresh === undefined) return Effect.succeed({ chunks: [sse("end", { reason: "gone" })], done: true })
      if ("unreadable" in fresh) return Effect.succeed({ chunks: [sse("end", { reason: "unreadable", problem: fresh.unreadable })], done: true })
      return Effect.gen(function*() {
        // `get` refreshed the index: what it added since the last poll is what this poll sends.
        const before = sent
        sent = fresh.count
        const added = fresh.count - before
        const records = added === 0 ? [] : yield* fresh.page(Math.max(before, fresh.count - MAX_EVENTS_PER_POLL), MAX_EVENTS_PER_POLL, {})
          .pipe(Effect.map((p) => p.trials))
        const idle = (yield* Effect.clockWith((c) => c.currentTimeMillis)) - fresh.modifiedMs > IDLE_MS
        const chunks = [...records.map((r) => sse("trial", r)), ...(added > 0 ? [sse("progress", progress())] : [])]
        // Ended only once this poll sent every trial the file holds (a poll sends at most MAX_EVENTS_PER_POLL).
        const complete = sent === fresh.count && records.length === added
        if (ended !== undefined && complete) chunks.push(sse("end", { reason: "ended", outcome: ended.outcome, trials: fresh.count }))
        else if (idle) chunks.push(sse("end", { reason: "idle", trials: fresh.count }))
        return { chunks, done: (ended !== undefined && complete) || idle }
      })
    })
  ))
  let sent = index.count
  const first = Stream.succeed(sse("progress", progress()))
  const rest = Stream.unfold(false, (done) =>
    done ? Effect.succeed(undefined) : Effect.sleep(POLL).pipe(
      Effect.andThen(poll),
      Effect.map((r) => [r.chunks.join(""), r.done] as const)
    ))
  return Stream.concat(first, rest).pipe(
    Stream.filter((s) => s.length > 0),
    Stream.encodeText
  )
}

/**
 * Answers one request for the runs under `runs.dir`; `hosts` are the Host
 * headers that name this server.
 *
 * @category routing
 * @since 0.7.0
 */
export const handle = (runs: Runs, hosts: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const host = request.headers["host"] ?? ""
    if (!hosts.has(host.toLowerCase())) return problem(403, `this server answers requests for ${[...hosts][0]} only`)
    if (request.method !== "GET" && request.method !== "HEAD") return problem(405, "only GET is served")
    const url = new URL(request.url, "http://view.invalid")
    // Split before decoding: an encoded `/` stays inside its segment (a KEY).
    const raw = url.pathname.split("/").slice(1)
    const segments = raw.map(decode)
    if (segments.some((s) => s === undefined)) return problem(400, "a path segment is not valid percent-encoding")
    const parts = segments as Array<string>
    const notFound = (what: string) => problem(404, what)

    if (parts.length === 1 && parts[0] === "") return html(Pages.index(yield* runs.list()))
    if (parts.length === 1 && parts[0] === "compare") {
      const base = url.searchParams.get("base")
      const next = url.searchParams.get("new")
      if (base === null || next === null) return problem(400, "compare needs base=KEY and new=KEY")
      const [a, b] = [yield* runs.get(base), yield* runs.get(next)]
      if (a === undefined || b === undefined) return notFound(`no run ${JSON.stringify(a === undefined ? base : next)} under the folder`)
      return yield* compareRuns({ base: { key: base, index: a }, new: { key: next, index: b } }).pipe(
        Effect.map((page) => html(page)),
        Effect.catch((e) => Effect.succeed(html(Pages.problem("Cannot compare these runs", e.message), 422)))
      )
    }
    if (parts[0] === "runs" && parts.length >= 2) {
      const key = parts[1]!
      const index = yield* runs.get(key)
      if (index === undefined) return html(Pages.problem("No such run", `no run ${JSON.stringify(key)} under the folder`), 404)
      if (parts.length === 2) return html(Pages.run(key, index))
      if (parts.length === 4 && parts[2] === "trials") {
        const trial = yield* index.find(parts[3]!)
        if (trial === undefined) return html(Pages.problem("No such trial", `no trial ${JSON.stringify(parts[3])} in run ${JSON.stringify(key)}`), 404)
        return html(Pages.trial(key, trial))
      }
    }
    if (parts[0] === "api" && parts[1] === "runs") {
      if (parts.length === 2) return json(yield* runs.list())
      const key = parts[2]!
      const index = yield* runs.get(key)
      if (index === undefined) return notFound(`no run ${JSON.stringify(key)} under the folder`)
      if (parts.length === 4 && parts[3] === "trials") {
        const offset = intParam(url.searchParams, "offset", 0, Number.MAX_SAFE_INTEGER)
        const limit = intParam(url.searchParams, "limit", 50, MAX_LIMIT)
        const filter = filterOf(url.searchParams)
        const bad = [offset, limit, filter].find((x): x is string => typeof x === "string")
        if (bad !== undefined) return problem(400, bad)
        return json(yield* index.page(offset as number, limit as number, filter as Filter))
      }
      if (parts.length === 4 && parts[3] === "events") {
        return HttpServerResponse.stream(events(runs, key, index), {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
        })
      }
    }
    return notFound(`nothing at ${url.pathname}`)
  }).pipe(
    Effect.catchTag("IndexError", (e) => Effect.succeed(problem(500, e.message)))
  )
