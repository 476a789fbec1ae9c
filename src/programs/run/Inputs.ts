/**
 * What a run reads before its first trial: the task source (a file or
 * synthetic tasks) as items, each item's trial units, and the scorers of its
 * `--score` specs.
 *
 * @since 0.1.0
 */
import { Effect, Stream } from "effect"
import * as path from "node:path"
import * as Choose from "../../datasets/Choose.ts"
import type { HttpClient } from "effect/http"
import * as Dataset from "../../datasets/Dataset.ts"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import type { Scorer } from "../../domain/Scorer.ts"
import * as Policy from "../../runner/Policy.ts"
import { RunInputError } from "../../runner/Remote.ts"
import { pushEpochs, type TrialUnit } from "../../runner/Runner.ts"
import type { World } from "../../scoring/Kind.ts"
import type * as Request from "../../domain/Request.ts"
import * as Scorers from "../../scoring/Scorers.ts"
import { DEFAULT_SYNTHETIC, type KindedConfig, type RunConfig, scoreSpecs } from "./Config.ts"

/** The scorers of the run's `--score` specs, `--pass` checked against their names; `world` is what a `check:` runs in. */
export const buildScorers = (
  config: KindedConfig,
  world?: World | undefined,
  judgeRequest?: Request.Options | undefined
): Effect.Effect<ReadonlyArray<Scorer<HttpClient.HttpClient>>, RunInputError> =>
  Effect.gen(function*() {
    const specs = scoreSpecs(config)
    const scorers = yield* Scorers.fromSpecs(specs, {
      cwd: config.cwd,
      judgeModel: config.judgeModel,
      judgeRequest,
      expectedTools: config.expectedTools,
      apiKey: config.apiKey,
      // The run's retry flags, --retries 0 included (the judge's own default retries otherwise).
      retry: Policy.retryOf(config),
      kinds: config.kinds.scorers,
      world
    }).pipe(Effect.mapError((e) => new RunInputError({ message: e.message, flag: "--score" })))
    if (config.pass !== undefined && !scorers.some((s) => s.name === config.pass)) {
      return yield* new RunInputError({
        flag: "--pass",
        message: scorers.length === 0
          ? `--pass ${config.pass}: the run has no scorers (--score SPEC)`
          : `--pass ${config.pass}: no scorer has that name (scorers: ${scorers.map((s) => s.name).join(", ")})`
      })
    }
    return scorers
  })

/**
 * The run's task source: its `--tasks` file read with `--map` and the rows
 * `--ids`, `--sample`, `--shuffle` and `--limit` choose (all its rows when
 * not `chosen`), or synthetic tasks.
 */
export const itemsOf = (
  config: KindedConfig,
  options: {
    readonly chosen: boolean
    /** The `--ids` file, read; read here when undefined. */
    readonly ids?: Choose.IdList | undefined
    readonly onSource?: ((read: Dataset.SourceRead) => void) | undefined
  } = { chosen: true }
): Stream.Stream<Dataset.Item, Dataset.DatasetError, Dataset.Services> => {
  if (config.tasks === undefined) return Dataset.synthetic(config.synthetic ?? DEFAULT_SYNTHETIC)
  const items = DatasetFormats.read(
    config.tasks,
    {
      onInvalid: config.onInvalid,
      format: config.format,
      map: config.map,
      jsonPath: config.jsonPath,
      cacheDir: config.cacheDir,
      hubTimeout: config.hubTimeout,
      maxDownload: config.maxDownload,
      onSource: options.onSource
    },
    config.kinds.datasets
  )
  if (!options.chosen) return items
  const ids = config.ids
  return Stream.unwrap(Effect.map(
    ids === undefined || options.ids !== undefined ? Effect.succeed(options.ids) : Choose.readIds(path.resolve(config.cwd, ids)),
    (list) => Choose.choose(items, selectionOf(config, list))
  ))
}

/**
 * A dataset's failure as the run reports it: bad input (exit 2), or, for a
 * source that failed on the way (a download stalled or too large), itself:
 * exit 1, and running again may read it.
 */
export const sourceError = (e: Dataset.DatasetError): Dataset.DatasetError | RunInputError =>
  e.transient === true ? e : RunInputError.from(e)

/**
 * The run's size from the `n` rows a file holds: the rows chosen (at most
 * `--limit` or `--sample` of them and, with `--ids`, at most as many as it
 * lists), times the epochs; undefined when `n` is. The progress total and
 * `--estimate`'s projection both read it.
 */
export const runSize = (config: RunConfig, ids: Choose.IdList | undefined, n: number | undefined): number | undefined =>
  n === undefined ? undefined : Math.min(n, config.limit ?? n, config.sample ?? n, ids?.ids.size ?? n) * config.epochs

/** The rows `config` chooses, its `--ids` file read. */
export const selectionOf = (config: RunConfig, ids: Choose.IdList | undefined): Choose.Selection => ({
  limit: config.limit,
  sample: config.sample,
  shuffle: config.shuffle,
  seed: config.seed,
  ids
})

/** Each task's units, one per epoch; a bad line's one unit carries its message. */
export const toUnits = (items: ReadonlyArray<Dataset.Item>, epochs: number): [TrialUnit, ...Array<TrialUnit>] => {
  const out: Array<TrialUnit> = []
  for (const item of items) {
    if (item._tag === "Task") {
      pushEpochs(out, item.task, epochs)
    } else {
      // One record per bad line, whatever the epochs.
      out.push({ task: { id: item.taskId, inputs: {} }, epoch: 1, invalid: item.message })
    }
  }
  return out as [TrialUnit, ...Array<TrialUnit>]
}
