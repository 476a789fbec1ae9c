/**
 * One trial's attempts: the active-call permit (and rate slot) per attempt,
 * the call (under the timeout, or direct when nothing wraps it), the settle
 * that records the trial or waits out a backoff and tries again, and the
 * trial's spans.
 *
 * @internal
 */
import { type Clock, Effect, Exit, type Semaphore, Tracer } from "effect"
import type { Agent, TrialContext } from "../../domain/Agent.ts"
import { type Callable, callables, callDirect } from "../../domain/internal/agent.ts"
import * as Policy from "../Policy.ts"
import { type AdaptiveLimit, jitter, type RateLimiter } from "./policy.ts"
import type { MutableProbe } from "./probe.ts"
import type { AgentEvalTask, AgentEvalTrial, AgentOutput } from "../../domain/Trial.ts"
import { trialId, type Usage } from "../../domain/Trial.ts"
import * as Usages from "../../domain/Usage.ts"
import { attributes, type Counts, spanNames, type Traced } from "./telemetry.ts"
import { liveClock, syncBlock, wallClock } from "./clock.ts"
import { firstError, withTimeout } from "./failure.ts"
import { nextWait, rateLimited } from "./rateLimit.ts"
import { toTrial } from "./record.ts"
import type { Starvation } from "./starvation.ts"
import type { Secrets } from "../Redactor.ts"
import { recordableOutput } from "./recordable.ts"

/** @internal */
export interface ExecuteConfig {
  readonly semaphore: Semaphore.Semaphore
  readonly probe: MutableProbe
  readonly timeoutMs?: number | undefined
  readonly retry?: Policy.RetryPolicy | undefined
  readonly rate?: RateLimiter | undefined
  readonly adaptive?: AdaptiveLimit | undefined
  /** Per run: spans for the trials, their calls and retry waits; none when undefined. */
  readonly traced?: Traced | undefined
  /** Per run: the Clock its trials read; looked up per trial when undefined (the eager repro). */
  readonly clock?: Clock.Clock | undefined
  /** Per run: where the `agent_trials_*` metrics count; nowhere when undefined (the eager repro). */
  readonly counts?: Counts | undefined
  /** A trial whose usage exceeds this many tokens fails with `TokenLimit`, never retried. */
  readonly trialMaxTokens?: number | undefined
  /** Per run: whether the event loop gets its turns (`starvation.ts`). */
  readonly starvation: Starvation
  /** Per run: the secrets its records lose (`Redactor`). */
  readonly redactor: Secrets
}

const ZERO = BigInt(0)

// One object per trial instead of a closure per step: this is the hot path,
// run once per trial, and its cost adds to every trial of every run.
export class TrialRun<AE, AR> {
  readonly context: TrialContext
  // The backoff waits, made at the first retry.
  delays: Array<number> | undefined = undefined
  clock!: Clock.Clock
  firstStartedMs = 0
  attempt = 0
  callOpen = false
  // Set when the trial settles; still undefined at the end if it was interrupted.
  failed: boolean | undefined = undefined
  startedNs = ZERO
  // The call's start on `performance.now()`, with the live clock.
  startedMs = 0
  // The synchronous block (`syncBlock`) the trial was admitted in.
  startedIn = 0
  ticket = 0
  // Set by `end`: the trial's effect is over, whatever its call does later.
  ended = false
  // The user's function's call in flight, when it is called directly.
  direct: { abort(): void } | undefined = undefined
  // The trial's span, when the run is traced.
  span: Tracer.Span | undefined = undefined
  // What failed attempts spent, when their errors say (`Usage.ofError`).
  spent: Usage | undefined = undefined
  // Rate limits waited out (`rateLimit.ts`): they use up no retry.
  rateLimitWaits = 0
  rateLimitWaitedMs = 0
  rateLimitChargedMs = 0

  readonly task: AgentEvalTask
  readonly epoch: number | undefined
  readonly agent: Agent<AE, AR>
  readonly config: ExecuteConfig

  constructor(task: AgentEvalTask, epoch: number | undefined, agent: Agent<AE, AR>, config: ExecuteConfig) {
    this.task = task
    this.epoch = epoch
    this.agent = agent
    this.config = config
    config.probe.unitStarted()
    if (config.counts !== undefined) config.counts.outstanding++
    this.context = { id: trialId(task.id, epoch), epoch }
  }

  traced(run: Effect.Effect<AgentEvalTrial, never, AR>): Effect.Effect<AgentEvalTrial, never, AR> {
    const { context } = this
    const spanAttributes: Record<string, unknown> = {
      [attributes.trialId]: context.id,
      [attributes.taskId]: this.task.id
    }
    if (context.epoch !== undefined) spanAttributes[attributes.epoch] = context.epoch
    // Not made the current span: the trial's own spans name it as their parent,
    // which spares a context switch per trial.
    return Effect.useSpan(spanNames.trial, { attributes: spanAttributes }, (span) => {
      this.span = span
      return run
    })
  }

  start(clock: Clock.Clock): Effect.Effect<AgentEvalTrial, never, AR> {
    this.clock = clock
    if (clock === liveClock) {
      const now = performance.now()
      this.firstStartedMs = wallClock.at(now)
      // The first call's start, if it comes before anything else runs.
      this.startedMs = now
      this.startedIn = syncBlock.current()
    } else {
      this.firstStartedMs = clock.currentTimeMillisUnsafe()
    }
    return this.next()
  }

  // Counts are settled here whatever ended the trial, interruption included.
  readonly end = (): undefined => {
    this.ended = true
    const { counts, probe } = this.config
    if (this.callOpen) {
      probe.callEnded()
      // Interrupted during a direct call: abort its signal (the callback
      // registers no cancel effect of its own).
      this.direct?.abort()
    }
    probe.unitEnded(this.failed)
    if (counts !== undefined) {
      if (this.callOpen) counts.active--
      counts.outstanding--
    }
  }

  next(): Effect.Effect<AgentEvalTrial, never, AR> {
    // The loop waits for its turn before a call, never a finished trial (an
    // interrupt there would drop it): see `loopBlocked`.
    if (this.config.starvation.loopBlocked) return Effect.andThen(Effect.yieldNow, Effect.suspend(() => this.next()))
    this.attempt++
    const { adaptive, retry, timeoutMs, traced } = this.config
    // A user's function (`Agent.fromPromise`, `module:`) without a timeout or
    // spans is called in the callback that waits for it: no agent Effect to
    // build, run and wrap per call, and no cancel effect (`end` aborts the
    // call's signal if the trial is interrupted during it).
    const callable = timeoutMs === undefined && traced === undefined ? callables.get(this.agent) : undefined
    if (callable === undefined) {
      return Effect.flatMap(this.withPermit(Effect.suspend(() => this.call())), (exit) => this.settle(exit))
    }
    // Without retries or the adaptive limit a trial always ends with its
    // first settle, so the callback resumes with the finished trial (the
    // permit is released right after): no step between the call and its record.
    return retry === undefined && adaptive === undefined
      ? this.withPermit(this.invokeDirect(callable, true))
      : Effect.flatMap(this.withPermit(this.invokeDirect(callable, false)), (exit) => this.settle(exit))
  }

  // Calls the user's function in the callback that waits for it, which
  // resumes with the settled trial (`settle`) or with the call's Exit.
  invokeDirect(callable: Callable, settle: true): Effect.Effect<AgentEvalTrial, never, AR>
  invokeDirect(callable: Callable, settle: false): Effect.Effect<Exit.Exit<AgentOutput, unknown>, never, AR>
  invokeDirect(
    callable: Callable,
    settle: boolean
  ): Effect.Effect<AgentEvalTrial | Exit.Exit<AgentOutput, unknown>, never, AR> {
    return Effect.callback<AgentEvalTrial | Exit.Exit<AgentOutput, unknown>, never, AR>((resume) => {
      this.callStarted()
      this.direct = callDirect(callable, this.task, this.context, (result, isExit) => {
        // A call that ends after its trial was interrupted (and settled by
        // `end`) must not settle it again: `resume` would ignore it, but
        // `settle` would still count it.
        if (this.ended) return
        resume(
          isExit
            ? this.afterCall(settle, result as Exit.Exit<AgentOutput, unknown>)
            : Effect.flatMap(Effect.exit(result), (exit) => this.afterCall(settle, exit))
        )
      })
    })
  }

  // What a direct call resumes with: the settled trial, or the call's Exit.
  afterCall(
    settle: boolean,
    exit: Exit.Exit<AgentOutput, unknown>
  ): Effect.Effect<AgentEvalTrial | Exit.Exit<AgentOutput, unknown>, never, AR> {
    return settle ? this.settle(exit) : Exit.succeed(exit)
  }

  // The call with an active-call permit (and a rate slot) held.
  withPermit<A, R>(call: Effect.Effect<A, never, R>): Effect.Effect<A, never, R> {
    const { rate, semaphore } = this.config
    return semaphore.withPermit(rate === undefined ? call : Effect.andThen(rate.acquire, call))
  }

  // With the permit (and the rate slot) held, as the call starts. Durations
  // use the monotonic clock (a latency must not jump with the wall clock):
  // `performance.now()` with the live clock, the clock's own nanoseconds
  // (a BigInt per read) with any other.
  callStarted(): void {
    const { clock, config } = this
    if (clock === liveClock) {
      // The first attempt, with its permit taken without a wait (always so
      // in a run of its own), starts in the synchronous block that admitted
      // the trial, microseconds later: the admission's reading serves.
      if (this.attempt !== 1 || this.startedIn !== syncBlock.block) this.startedMs = performance.now()
    } else {
      this.startedNs = clock.monotonicTimeNanosUnsafe()
    }
    if (config.adaptive !== undefined) this.ticket = config.adaptive.start()
    this.callOpen = true
    config.probe.callStarted()
    if (config.counts !== undefined) config.counts.active++
  }

  call(): Effect.Effect<Exit.Exit<AgentOutput, unknown>, never, AR> {
    const { config } = this
    this.callStarted()
    // A callable that throws before returning an Effect must fail its trial,
    // not the fiber that drives the stream (a concurrent Stream.mapEffect is
    // reported to hang on that).
    let effect: Effect.Effect<AgentOutput, unknown, AR>
    try {
      effect = this.agent(this.task, this.context)
    } catch (defect) {
      effect = Effect.die(defect)
    }
    const bounded = config.timeoutMs === undefined ? effect : withTimeout(effect, config.timeoutMs)
    return Effect.exit(
      this.span === undefined
        ? bounded
        : childSpan(this.span, spanNames.call, { [attributes.attempt]: this.attempt }, bounded, true)
    )
  }

  settle(called: Exit.Exit<AgentOutput, unknown>): Effect.Effect<AgentEvalTrial, never, AR> {
    const { clock, config } = this
    // Scrubbed, and refused if JSON cannot write it, before anything reads it.
    const exit = recordableOutput(called, config.redactor)
    // One reading of the live clock gives both the call's duration and the
    // trial's end (`wallClock`); any other clock is read for each.
    let durationMs: number
    let finishedMs: number
    let liveNow: number | undefined
    if (clock === liveClock) {
      const now = liveNow = performance.now()
      durationMs = now - this.startedMs
      finishedMs = wallClock.at(now)
    } else {
      durationMs = Number(clock.monotonicTimeNanosUnsafe() - this.startedNs) / 1e6
      finishedMs = clock.currentTimeMillisUnsafe()
    }
    this.callOpen = false
    config.probe.callEnded()
    const counts = config.counts
    if (counts !== undefined) counts.active--
    const error = exit._tag === "Failure" ? firstError(exit.cause) : undefined
    if (error !== undefined) {
      const usage = Usages.ofError(error.value)
      if (usage !== undefined) this.spent = Usages.add(this.spent, usage)
    }
    const limit = config.trialMaxTokens
    const overLimit = limit !== undefined && this.tokens(exit) > limit
    const adapted = config.adaptive === undefined
      ? undefined
      : config.adaptive.onOutcome(
        this.ticket,
        exit._tag === "Success"
          ? "succeeded"
          : error !== undefined && Policy.isThrottled(error.value)
          ? "throttled"
          : "failed",
        error?.value
      )
    const retry = config.retry
    // A rate limit's Retry-After is waited out without using up a retry.
    const rateLimitWait = error === undefined || overLimit || retry === undefined
      ? undefined
      : nextWait(retry, error.value, this)
    if (
      rateLimitWait === "spent" || rateLimitWait === undefined && (error === undefined || overLimit ||
          retry === undefined || this.attempt - this.rateLimitWaits > retry.retries || !Policy.isRetryable(error.value))
    ) {
      // Recorded to the microsecond: the clock's further digits are noise.
      const latencyMs = Math.round(durationMs * 1000) / 1000
      // Still refused for rate limits: the server's limit, not the agent's failure.
      const last = error !== undefined && !overLimit && retry !== undefined && Policy.isRateLimit(error.value)
        ? Exit.fail(rateLimited(error.value, retry, this))
        : exit
      const trial = toTrial(this, last, latencyMs, finishedMs, overLimit ? limit : undefined)
      this.failed = trial.status === "failed"
      if (counts !== undefined) {
        if (this.failed) counts.failed++
        else counts.completed++
        counts.recordLatency(latencyMs)
        const usage = trial.output?.usage ?? trial.error?.usage
        if (usage !== undefined) {
          counts.inputTokens += usage.input_tokens
          counts.outputTokens += usage.output_tokens
        }
      }
      if (this.span !== undefined) this.annotate(this.span, trial, last)
      const done = adapted === undefined ? Effect.succeed(trial) : Effect.as(adapted, trial)
      return config.starvation.eventLoopStarved(liveNow) ? Effect.andThen(Effect.yieldNow, done) : done
    }
    const backoff = rateLimitWait !== undefined ? this.waitThenNext(rateLimitWait) : this.backoff(retry, error?.value)
    return adapted === undefined ? backoff : Effect.andThen(adapted, backoff)
  }

  // A retry's backoff: the retries so far count the agent's failures only.
  backoff(retry: Policy.RetryPolicy | undefined, error: unknown): Effect.Effect<AgentEvalTrial, never, AR> {
    return Effect.flatMap(jitter, (j) =>
      this.waitThenNext(
        retry === undefined ? 0 : Policy.retryDelayMs(retry, this.attempt - this.rateLimitWaits, error, j)
      ))
  }

  // The wait before the next attempt (a backoff or a rate limit's), then the attempt.
  waitThenNext(delay: number): Effect.Effect<AgentEvalTrial, never, AR> {
    const { config } = this
    ;(this.delays ??= []).push(delay)
    config.probe.retries++
    if (config.counts !== undefined) config.counts.retries++
    const wait = Effect.sleep(delay)
    return Effect.andThen(
      this.span === undefined
        ? wait
        : childSpan(
          this.span,
          spanNames.retryWait,
          { [attributes.attempt]: this.attempt, [attributes.delayMs]: delay },
          wait,
          false
        ),
      this.next()
    )
  }

  // A failed trial's span ends here with the last attempt's failure, so a
  // trace viewer marks it as an error; a completed one ends when its effect does.
  annotate(span: Tracer.Span, trial: AgentEvalTrial, exit: Exit.Exit<AgentOutput, unknown>): void {
    span.attribute(attributes.status, trial.status)
    span.attribute(attributes.attempts, this.attempt)
    const usage = trial.output?.usage ?? trial.error?.usage
    if (usage !== undefined) {
      span.attribute(attributes.inputTokens, usage.input_tokens)
      span.attribute(attributes.outputTokens, usage.output_tokens)
      if (usage.model !== undefined) span.attribute(attributes.requestModel, usage.model)
    }
    if (trial.error === undefined) return
    span.attribute(attributes.errorType, trial.error.type)
    span.end(this.config.traced?.timing === false ? BigInt(0) : this.clock.currentTimeNanosUnsafe(), exit)
  }

  // The tokens the trial has spent with this attempt's.
  tokens(exit: Exit.Exit<AgentOutput, unknown>): number {
    const spent = this.spent?.total_tokens ?? 0
    return exit._tag === "Success" ? spent + (exit.value.usage?.total_tokens ?? 0) : spent
  }
}

// A span around `effect`, a child of `parent`; made the current span (so
// the agent's own spans nest under it) only when `current`. Effect.withSpan
// would also capture a stack trace each time.
const childSpan = <A, E, R>(
  parent: Tracer.Span,
  name: string,
  spanAttributes: Record<string, unknown>,
  effect: Effect.Effect<A, E, R>,
  current: boolean
): Effect.Effect<A, E, R> =>
  Effect.useSpan(
    name,
    { parent, attributes: spanAttributes },
    (span) => current ? Effect.provideService(effect, Tracer.ParentSpan, span) : effect
  )
