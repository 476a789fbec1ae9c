/**
 * The spending budgets of a run: `--max-cost USD` and `--max-tokens N`
 * (agent, simulated user and judges together). Admission reserves for the calls in flight
 * (the mean spent per trial so far times the calls in flight, `admitWithin`),
 * so what was recorded plus what was sent stays within about one trial's
 * spend of the budget: a trial is admitted only while the recorded spend
 * plus that reserve is below the budget. When it no longer is,
 * admission stops and the trials in flight finish and are recorded; a trial
 * whose record reaches a budget stops the run the way `--max-failures` does
 * (recorded, the rest in flight interrupted). A `--resume` counts what the
 * file's trials already spent.
 *
 * @since 0.4.0
 */
import { Effect, Latch, Schema, Stream } from "effect"
import type { AgentEvalTrial } from "../../domain/Trial.ts"
import * as Usage from "../../domain/Usage.ts"
import { stopAfter } from "../../internal/stopAfter.ts"

/**
 * A budget was reached: the run stopped (exit code 1).
 *
 * @category errors
 * @since 0.4.0
 */
export class BudgetExceeded extends Schema.TaggedError<BudgetExceeded>()("BudgetExceeded", {
  message: Schema.String,
  budget: Schema.Literals(["max_cost", "max_tokens"]),
  spent: Schema.Number,
  limit: Schema.Number,
  /** The calls in flight when the run stopped (their estimate reserved). */
  in_flight: Schema.optionalKey(Schema.Number)
}) {
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

/**
 * The budgets; none when both are undefined.
 *
 * @category models
 * @since 0.4.0
 */
export interface Budgets {
  /** USD, over the priced usage of agent and judges. */
  readonly maxCost?: number | undefined
  /** Tokens (`total_tokens`), agent and judges. */
  readonly maxTokens?: number | undefined
}

/**
 * What the trials counted so far spent.
 *
 * @category models
 * @since 0.4.0
 */
export class Spent {
  /**
   * The agent calls running now (the runner's probe), for `inFlightAtStop`;
   * without it, the trials admitted and not yet counted, as the reserve.
   */
  private readonly activeCalls: (() => number) | undefined
  constructor(activeCalls?: () => number) {
    this.activeCalls = activeCalls
  }
  tokens = 0
  cost = 0
  /** Trials counted (those recorded before a resume too): the means' divisor. */
  trials = 0
  /** This run's trials admitted, and counted: the difference is in flight. */
  admitted = 0
  settled = 0
  /**
   * Set when a budget stopped admission or the run: the agent calls in flight
   * then (the trials past their call and not yet counted are reserved for,
   * but are no calls).
   */
  inFlightAtStop: number | undefined = undefined
  // Set when admission stopped on the reserve, before any record reached a budget.
  closed: BudgetExceeded | undefined = undefined
  /** Open once a trial is counted: until then there is no mean to reserve, and one trial runs alone. */
  readonly counted: Latch.Latch = Latch.makeUnsafe(false)

  get inFlight(): number {
    return this.admitted - this.settled
  }

  /** The agent calls running now, when the probe is known; else `inFlight`. */
  get callsInFlight(): number {
    return this.activeCalls === undefined ? this.inFlight : Math.min(this.activeCalls(), this.inFlight)
  }

  add(trial: AgentEvalTrial): void {
    this.trials++
    // Served from the response cache: nothing spent now (`usage.cached`).
    if (Usage.servedFromCache(trial)) {
      if (this.trials === 1) this.counted.openUnsafe()
      return
    }
    const agent = Usage.ofTrial(trial)
    if (agent !== undefined) {
      this.tokens += agent.total_tokens
      this.cost += agent.cost_usd ?? 0
      // A simulated user's model counts too (`usage.user`).
      if (agent.user !== undefined) {
        this.tokens += agent.user.total_tokens
        this.cost += agent.user.cost_usd ?? 0
      }
    }
    const judge = trial.scores === undefined ? undefined : Usage.ofScores(trial)
    if (judge !== undefined) {
      this.tokens += judge.total_tokens
      this.cost += judge.cost_usd ?? 0
    }
    // Last: a waiting admission may go on at once, and must see this trial's spend.
    if (this.trials === 1) this.counted.openUnsafe()
  }

  /** The budgets as the summary reports them, with the calls in flight when one stopped the run. */
  of(budgets: Budgets): Budgets & { readonly inFlightAtStop: number | undefined } {
    return { ...budgets, inFlightAtStop: this.inFlightAtStop }
  }

  /** The first budget reached, if any. */
  reached(budgets: Budgets): BudgetExceeded | undefined {
    return this.over(budgets, 0)
  }

  /**
   * Whether one more trial may start: the recorded spend plus the mean per
   * trial for each call in flight is still below every budget (so what is
   * sent stays within one trial's mean of it). Before any trial is counted
   * there is no mean: `admitWithin` lets one trial run alone until then.
   */
  admits(budgets: Budgets): boolean {
    if (this.closed !== undefined) return false
    const closed = this.over(budgets, this.inFlight)
    if (closed === undefined) return true
    this.closed = closed
    this.inFlightAtStop = this.callsInFlight
    return false
  }

  // The first budget that the recorded spend plus `reserve` trials' mean reaches.
  private over(budgets: Budgets, reserve: number): BudgetExceeded | undefined {
    const resume = "(--resume continues, counting what was spent)"
    const inFlight = this.inFlight
    const mean = (total: number) => this.trials === 0 ? 0 : total / this.trials
    const sent = reserve === 0 ? "" : `, and ${reserve} calls in flight (estimated at the mean per trial so far)`
    if (budgets.maxCost !== undefined && this.cost + mean(this.cost) * reserve >= budgets.maxCost) {
      return new BudgetExceeded({
        message: `stopped: the trials recorded spent $${round(this.cost)}${sent}, reaching --max-cost ${budgets.maxCost} ${resume}`,
        budget: "max_cost",
        spent: round(this.cost),
        limit: budgets.maxCost,
        in_flight: inFlight
      })
    }
    if (budgets.maxTokens !== undefined && this.tokens + mean(this.tokens) * reserve >= budgets.maxTokens) {
      return new BudgetExceeded({
        message: `stopped: the trials recorded spent ${this.tokens} tokens${sent}, reaching --max-tokens ${budgets.maxTokens} ${resume}`,
        budget: "max_tokens",
        spent: this.tokens,
        limit: budgets.maxTokens,
        in_flight: inFlight
      })
    }
    return undefined
  }
}

const round = (x: number): number => Math.round(x * 1e9) / 1e9

/**
 * The units a run admits within its budgets: each is let through only while
 * `spent.admits` (the recorded spend, plus the mean per trial for the calls
 * in flight, below every budget), one at a time as the runner asks for it;
 * before any trial is counted, one runs alone. When one does not fit, the
 * stream ends: the trials in flight finish, and `stopOnBudget` then fails
 * with the reason.
 *
 * @category combinators
 * @since 0.5.0
 */
export const admitWithin = <A, E, R>(
  units: Stream.Stream<A, E, R>,
  budgets: Budgets,
  spent: Spent
): Stream.Stream<A, E, R> =>
  units.pipe(
    // One at a time: each unit is judged as the runner takes it, not a chunk ahead.
    Stream.rechunk(1),
    Stream.takeWhileEffect(() =>
      // Nothing counted yet (nor recorded before a resume): the first trial runs alone, giving the mean.
      Effect.map(spent.trials === 0 && spent.inFlight > 0 ? spent.counted.await : Effect.void, () => {
        if (!spent.admits(budgets)) return false
        spent.admitted++
        return true
      })
    )
  )

/**
 * Stops `stream` once `spent` (which already counts the trials recorded
 * before) reaches a budget: the trial that reaches it is emitted, then the
 * stream fails with `BudgetExceeded`, naming the calls in flight it
 * interrupts. A budget already reached stops it before its first trial;
 * admission stopped by `admitWithin` fails it once its trials are in.
 * `trialOf` reads the trial of an element that carries more than its trial
 * (a matrix cell's).
 *
 * @category combinators
 * @since 0.4.0
 */
export const stopOnBudget = <E, R, A = AgentEvalTrial>(
  stream: Stream.Stream<A, E, R>,
  budgets: Budgets,
  spent: Spent,
  trialOf: (item: A) => AgentEvalTrial = (item) => item as AgentEvalTrial
): Stream.Stream<A, E | BudgetExceeded, R> =>
  Stream.suspend(() => {
    const before = spent.reached(budgets)
    if (before !== undefined) return Stream.fail(before)
    return stopAfter(stream, (item) => {
      spent.add(trialOf(item))
      spent.settled++
      const reached = spent.reached(budgets)
      // Admission may have stopped first, with more calls in flight: that is the figure kept.
      if (reached !== undefined) spent.inFlightAtStop ??= spent.callsInFlight
      return reached
    }).pipe(Stream.concat(Stream.suspend(() => spent.closed === undefined ? Stream.empty : Stream.fail(spent.closed))))
  })
