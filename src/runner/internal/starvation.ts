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

/**
 * One run's view of the event loop: made where the run starts (its config,
 * `bounded.withTelemetry`), so a run that starves or blocks the loop makes
 * its own trials yield, not another run's, and no run starts with another's
 * count of trials or a turn long past.
 *
 * @internal
 */
export class Starvation {
  lastTurn = performance.now()
  trialsSinceTurn = 0
  heartbeat = false
  /** Set while the loop is blocked: each call of the run yields before it starts. */
  loopBlocked = false
  readonly beat = (): void => {
    this.heartbeat = false
    this.loopBlocked = false
    this.trialsSinceTurn = 0
    this.lastTurn = performance.now()
  }
  /** Asked as each trial ends, with the live clock's reading (`now`) when the run has it. */
  eventLoopStarved(now: number | undefined): boolean {
    if (!this.heartbeat) {
      this.heartbeat = true
      setImmediate(this.beat)
    }
    if (++this.trialsSinceTurn > STARVED_TRIALS) return performance.now() - this.lastTurn > STARVED_MS
    if (now !== undefined && now - this.lastTurn > BLOCKED_MS) this.loopBlocked = true
    return false
  }
}
