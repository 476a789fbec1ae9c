/**
 * What the tests of the run's stages (programs/run/stages/) share: units,
 * trial records and a stream's elements or failure, read back.
 */
import { Cause, Duration, Effect, Exit, Stream } from "effect"
import type { RunConfig } from "../src/programs/run/Config.ts"
import type { AgentEvalTrial, Usage } from "../src/domain/Trial.ts"
import type { TrialUnit } from "../src/runner/Runner.ts"

/** The unit of task `id` (epoch `epoch`). */
export const unit = (id: string, epoch?: number): TrialUnit => ({ task: { id, inputs: { id } }, epoch })

/** A completed trial of task `taskId` with output `text` and, when given, its usage. */
export const trialOf = (taskId: string, options: { readonly text?: string; readonly usage?: Usage } = {}): AgentEvalTrial => ({
  id: `${taskId}:trial`,
  task_id: taskId,
  status: "completed",
  output: { output_text: options.text ?? `out:${taskId}`, ...(options.usage === undefined ? {} : { usage: options.usage }) },
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:00.001Z", latency_ms: 1 }
})

/** `tokens` tokens of model `model`, half in, half out. */
export const usageOf = (tokens: number, model = "m"): Usage => ({
  input_tokens: tokens / 2,
  output_tokens: tokens / 2,
  total_tokens: tokens,
  model
})

/**
 * What a stream emitted before it ended, and how it ended: `undefined` when
 * it ended well, else its failure.
 */
export const drain = <A, E, R>(stream: Stream.Stream<A, E, R>) =>
  Effect.gen(function*() {
    const out: Array<A> = []
    const exit = yield* Effect.exit(Stream.runForEach(stream, (a) => Effect.sync(() => void out.push(a))))
    const failure = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason) : undefined
    return { out, error: failure?.error, ok: Exit.isSuccess(exit) }
  })

/** A run's config: synthetic tasks, the simulated agent, nothing else asked; `extra` on top. */
export const configOf = (extra: Partial<RunConfig> = {}): RunConfig => ({
  tasks: undefined,
  synthetic: undefined,
  agent: { _tag: "Sim", options: { latencyMs: 0, jitterMs: 0, failRate: 0, seed: 1 } },
  model: undefined,
  apiKey: undefined,
  parallelism: 2,
  epochs: 1,
  out: undefined,
  resume: false,
  retryFailed: false,
  progress: false,
  progressInterval: 1000,
  tty: false,
  onInvalid: "fail",
  cwd: process.cwd(),
  timeout: undefined,
  retries: 0,
  backoff: Duration.millis(500),
  backoffMax: Duration.seconds(30),
  retryAfterMax: Duration.seconds(60),
  rate: undefined,
  adaptive: false,
  maxFailures: undefined,
  ...extra
})
