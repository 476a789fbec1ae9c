/**
 * The trial entity: one persisted message per trial, "run this trial",
 * whose reply is the finished `AgentEvalTrial` (scores included).
 *
 * The message's primary key is the trial id, under an entity id that starts
 * with the run's key, so a message sent twice for one trial (a client that
 * resumes, a send retried after a lost connection) is stored once and
 * answered with the one stored reply. Execution is at-least-once: a worker
 * killed in the middle of a trial leaves it unprocessed, and the worker that
 * takes over its shard runs it again.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { AgentEvalTask, AgentEvalTrial, trialId } from "../domain/Trial.ts"

/**
 * How a trial is run, the same for every trial of a run: the run's
 * failure-handling flags and its scorer specs travel with each message, so a
 * worker runs the trial as the local run would.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Settings = Schema.Struct({
  timeoutMs: Schema.optionalKey(Schema.Number),
  retries: Schema.Number,
  backoffMs: Schema.Number,
  backoffMaxMs: Schema.Number,
  retryAfterMaxMs: Schema.Number,
  /** Absent from messages sent before it was (`Policy.defaultRetry`'s). */
  rateLimitWaitMaxMs: Schema.optionalKey(Schema.Number),
  /** Scorer specs, as `--score` takes them; none scores nothing. */
  score: Schema.Array(Schema.String),
  judgeModel: Schema.optionalKey(Schema.String),
  expectedTools: Schema.optionalKey(Schema.String)
})
export type Settings = typeof Settings.Type

/**
 * Runs one trial and replies with its record.
 *
 * @category rpcs
 * @since 0.1.0
 */
export const RunTrial = Rpc.make("RunTrial", {
  payload: {
    /** The run's key (`runKey`). */
    run: Schema.String,
    task: AgentEvalTask,
    epoch: Schema.Number,
    /** Set for a bad dataset line under `--on-invalid skip`: the trial fails with `InvalidTask`. */
    invalid: Schema.optionalKey(Schema.String),
    settings: Settings
  },
  success: AgentEvalTrial,
  primaryKey: (payload) => trialId(payload.task.id, payload.epoch)
}).annotate(ClusterSchema.Persisted, true)
  // A client that stops (Ctrl-C, --max-failures) does not interrupt the
  // trials it sent: they finish and their replies are stored, so its
  // `--resume` gets them without running them again (an interruption would
  // be stored as the trial's reply instead).
  .annotate(ClusterSchema.Uninterruptible, "client")
  // A worker that shuts down (SIGTERM) interrupts its trials at once, without
  // storing the interruption as their reply: the worker that takes the shard
  // over runs them again.
  .annotate(ClusterSchema.InterruptOnTermination, true)

/**
 * The entity type name, as stored in the message tables' `entity_type`.
 *
 * @category constants
 * @since 0.1.0
 */
export const entityType = "AgentTrial"

/**
 * The trial entity.
 *
 * @category entities
 * @since 0.1.0
 */
export const TrialEntity = Entity.make(entityType, [RunTrial])

/**
 * Entities per run. A run's trials spread over this many entity ids (and so
 * over as many shards, and the workers holding them); each entity runs its
 * trials concurrently, the worker's own limit bounding them all.
 *
 * @category constants
 * @since 0.1.0
 */
export const buckets = 256

/**
 * The entity id of a trial: `RUNKEY/BUCKET`, the bucket a hash of the trial
 * id. Every entity id of a run starts with `RUNKEY/`, which is how a run's
 * messages are found and deleted.
 *
 * @category constructors
 * @since 0.1.0
 */
export const entityId = (runKey: string, id: string): string => `${runKey}/${fnv1a(id) % buckets}`

const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}
