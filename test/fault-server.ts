/**
 * A fault-injecting agent server on 127.0.0.1: it answers each POSTed task by
 * the prefix of its id (`429-1` -> HTTP 429, `hang-2` -> never answers) and
 * counts the requests per task id, so a test can compare them with the
 * attempts a trial recorded.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type * as http from "node:http"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import { json, serve } from "./http-server.ts"

/**
 * The faults, by task id prefix.
 *
 * - `ok`: 200 with an `AgentOutput`.
 * - `400`, `408`, `500`, `503`: that status, no `Retry-After`.
 * - `429`: 429 with `Retry-After: 1` (seconds).
 * - `429cap`: 429 with `Retry-After: 3600`, more than any cap in the tests.
 * - `503date`: 503 with `Retry-After` as an HTTP date an hour ahead.
 * - `503wait`: 503 with `Retry-After: 30`, so the trial sits in backoff.
 * - `hang`: reads the request and never answers.
 * - `slowbody`: 200 and the headers at once, then a body that dribbles out a
 *   byte every 50 ms and never ends.
 * - `reset`: destroys the socket once the request is read.
 * - `badjson`: 200 with a body that is not JSON.
 * - `shape`: 200 with JSON that is not an `AgentOutput`.
 * - `flaky`: 503 for the first 2 requests of a task id, then 200.
 */
export const routeOf = (taskId: string): string => taskId.slice(0, taskId.lastIndexOf("-"))

const answer = (route: string, nth: number, id: string, res: http.ServerResponse, req: http.IncomingMessage) => {
  switch (route) {
    case "ok":
      return json(res, 200, { output_text: `ok ${id}` })
    case "400":
    case "408":
    case "500":
    case "503":
      return json(res, Number(route), { error: { message: `fault ${route}` } })
    case "429":
      return json(res, 429, { error: { message: "slow down" } }, { "retry-after": "1" })
    case "429cap":
      return json(res, 429, { error: { message: "slow down a lot" } }, { "retry-after": "3600" })
    case "503date":
      return json(res, 503, { error: { message: "maintenance" } }, {
        "retry-after": new Date(Date.now() + 3_600_000).toUTCString()
      })
    case "503wait":
      return json(res, 503, { error: { message: "busy" } }, { "retry-after": "30" })
    case "hang":
      return
    case "slowbody": {
      res.writeHead(200, { "content-type": "application/json" })
      res.write("{\"output_text\": \"")
      const timer = setInterval(() => res.write("."), 50)
      res.on("close", () => clearInterval(timer))
      return
    }
    case "reset":
      return req.socket.destroy()
    case "badjson":
      return json(res, 200, "{\"output_text\": \"unterminated")
    case "shape":
      return json(res, 200, { text: "no output_text here" })
    case "flaky":
      return nth <= 2 ? json(res, 503, { error: { message: `flaky ${nth}` } }) : json(res, 200, { output_text: `ok ${id}` })
    default:
      return json(res, 404, { error: { message: `no fault named ${route}` } })
  }
}

/**
 * The server for the test's scope. `counts` holds the requests seen per task
 * id; `cutOff` those whose connection closed before the answer was complete
 * (a client that gave up, or a `reset`).
 */
export const faultServer = Effect.gen(function*() {
  const counts = new Map<string, number>()
  const cutOff = new Map<string, number>()
  const server = yield* serve((request, res, req) => {
    const id = (JSON.parse(request.body) as AgentEvalTask).id
    const nth = (counts.get(id) ?? 0) + 1
    counts.set(id, nth)
    res.on("close", () => {
      if (!res.writableFinished) cutOff.set(id, (cutOff.get(id) ?? 0) + 1)
    })
    answer(routeOf(id), nth, id, res, req)
  })
  return { url: `${server.base}/agent`, counts, cutOff } as const
})

/** What a trial of each fault must record with `retries: 2`. */
export interface Expected {
  readonly status: "completed" | "failed"
  readonly type?: string
  /** The HTTP status named in the error message. */
  readonly http?: number
  readonly attempts: number
  /** Waits that `Retry-After` dictates; backoff waits are checked against their bounds instead. */
  readonly delays?: ReadonlyArray<number>
}

// The Retry-After waits of a server that always refuses with `retryAfterMs`:
// each capped at `retryAfterMaxMs` and by what is left of `rateLimitWaitMaxMs`
// (each counted as at least 1 s), until nothing is left.
const rateLimitDelays = (retryAfterMs: number, retryAfterMaxMs: number, rateLimitWaitMaxMs: number) => {
  const out: Array<number> = []
  for (let charged = 0; charged < rateLimitWaitMaxMs;) {
    const wait = Math.min(retryAfterMs, retryAfterMaxMs, rateLimitWaitMaxMs - charged)
    out.push(wait)
    charged += Math.max(wait, 1000)
  }
  return out
}

const rateLimited = (retryAfterMs: number, retryAfterMaxMs: number, rateLimitWaitMaxMs: number, http: number): Expected => {
  const delays = rateLimitDelays(retryAfterMs, retryAfterMaxMs, rateLimitWaitMaxMs)
  return { status: "failed", type: "RateLimited", http, attempts: delays.length + 1, delays }
}

/**
 * `retryAfterMaxMs`: the cap on `Retry-After` waits in force (the CLI's
 * default is 60 s); `rateLimitWaitMaxMs`: the cap on a trial's rate-limit
 * waits in all (the CLI's default is 10 minutes).
 */
export const expectations = (retryAfterMaxMs: number, rateLimitWaitMaxMs: number): Record<string, Expected> => ({
  ok: { status: "completed", attempts: 1 },
  400: { status: "failed", type: "HttpStatusError", http: 400, attempts: 1 },
  408: { status: "failed", type: "HttpStatusError", http: 408, attempts: 3 },
  // Rate limits with Retry-After: waited out, no retry used, until the waits are spent.
  429: rateLimited(1000, retryAfterMaxMs, rateLimitWaitMaxMs, 429),
  "429cap": rateLimited(3_600_000, retryAfterMaxMs, rateLimitWaitMaxMs, 429),
  500: { status: "failed", type: "HttpStatusError", http: 500, attempts: 3 },
  503: { status: "failed", type: "HttpStatusError", http: 503, attempts: 3 },
  "503date": rateLimited(3_600_000, retryAfterMaxMs, rateLimitWaitMaxMs, 503),
  hang: { status: "failed", type: "Timeout", attempts: 3 },
  slowbody: { status: "failed", type: "Timeout", attempts: 3 },
  reset: { status: "failed", type: "NetworkError", attempts: 3 },
  badjson: { status: "failed", type: "InvalidAgentOutput", attempts: 1 },
  shape: { status: "failed", type: "InvalidAgentOutput", attempts: 1 },
  flaky: { status: "completed", attempts: 3 }
})

/**
 * Checks one trial against its fault's expectation and against the server's
 * count of requests for it. Backoff waits (no `Retry-After`) must lie within
 * [half, all] of min(maxMs, baseMs * 2^(k-1)).
 */
export const checkTrial = (
  trial: AgentEvalTrial,
  expected: Expected,
  requests: number | undefined,
  backoff: { readonly baseMs: number; readonly maxMs: number }
): void => {
  const what = `${trial.task_id}: ${JSON.stringify(trial.error ?? trial.output)} ${JSON.stringify(trial.metadata)}`
  assert.strictEqual(trial.status, expected.status, what)
  assert.strictEqual(trial.error?.type, expected.type, what)
  if (expected.http !== undefined) assert.match(trial.error!.message, new RegExp(`^HTTP ${expected.http} from `), what)
  if (expected.status === "completed") assert.strictEqual(trial.output?.output_text, `ok ${trial.task_id}`, what)
  assert.strictEqual(trial.metadata["attempts"], expected.attempts, what)
  assert.strictEqual(requests, expected.attempts, `${what}: requests seen by the server`)
  const delays = trial.metadata["retry_delays_ms"] as ReadonlyArray<number> | undefined
  if (expected.attempts === 1) {
    assert.isUndefined(delays, what)
  } else if (expected.delays !== undefined) {
    assert.deepStrictEqual(delays, expected.delays, what)
  } else {
    assert.lengthOf(delays ?? [], expected.attempts - 1, what)
    delays!.forEach((d, k) => {
      const step = Math.min(backoff.maxMs, backoff.baseMs * 2 ** k)
      assert.isTrue(d >= Math.round(step / 2) && d <= step, `${what}: wait ${k + 1} is ${d}, not in [${step / 2}, ${step}]`)
    })
  }
}
