/**
 * Whether the event loop gets its turns while trials end on microtasks alone
 * (see below): `eventLoopStarved` is asked as each trial ends, `loopBlocked`
 * before each call starts.
 *
 * @internal
 */

// Agents that answer at once (a cache hit, an already-resolved promise) can
// keep the run going on microtasks alone: timers (progress, the results
// writer's flush), I/O and signal handlers then never run, and work scheduled
// for the next macrotask piles up in memory. A heartbeat on setImmediate
// tells when the event loop last got a turn; once that is more than a few
// milliseconds and a thousand trials ago, every trial that ends yields to the
// scheduler (a macrotask) before handing its result on, so the loop gets its
// turn within one round of trials. An agent that computes on the main thread
// starves the loop with few trials: under the live clock (`now`, read by the
// trial anyway), a trial that ends more than BLOCKED_MS after the loop's last
// turn sets `loopBlocked`, and until the loop turns every call yields before
// it starts, so a Ctrl-C, the writer's timer and its writes' callbacks wait
// for the calls already running, not for a thousand. A run whose agent waits on real I/O or
// timers never pays for this beyond a counter and a clock read per trial, and
// a short synchronous burst (a test of a few hundred trials under TestClock)
// is never split across macrotasks.
const STARVED_MS = 10
const STARVED_TRIALS = 1024
const BLOCKED_MS = 50
let lastTurn = performance.now()
let trialsSinceTurn = 0
let heartbeat = false
export let loopBlocked = false
const beat = () => {
  heartbeat = false
  loopBlocked = false
  trialsSinceTurn = 0
  lastTurn = performance.now()
}
export const eventLoopStarved = (now: number | undefined): boolean => {
  if (!heartbeat) {
    heartbeat = true
    setImmediate(beat)
  }
  if (++trialsSinceTurn > STARVED_TRIALS) return performance.now() - lastTurn > STARVED_MS
  if (now !== undefined && now - lastTurn > BLOCKED_MS) loopBlocked = true
  return false
}
