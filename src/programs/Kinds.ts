/**
 * The registries a program reads its kinds from: the agent kinds (`--agent`),
 * the scorer kinds (`--score`),
 * the dataset formats (`--tasks`, `--format`) and the outputs of a run
 * (`--summary`, `--report`), and the results stores (`--out`).
 * The CLI is made from one `Kinds` (its help and parsing derived from it);
 * `builtIn` is this package's, and a program of one's own may extend it.
 * Programs read the kinds from the `Registry` service (`layer()`,
 * `layer(extra)`), which the CLI provides once.
 *
 * @since 0.3.0
 */
import { Layer } from "effect"
import * as AgentKinds from "../agents/AgentKinds.ts"
import * as DatasetFormats from "../datasets/DatasetFormats.ts"
import * as ResultsStores from "../results/ResultsStores.ts"
import * as ScorerKinds from "../scoring/ScorerKinds.ts"
import { Registry } from "./internal/kinds.ts"
import * as OutputFormats from "./OutputFormats.ts"

/**
 * The kinds a program knows.
 *
 * @category models
 * @since 0.3.0
 */
export interface Kinds {
  readonly agents: ReadonlyArray<AgentKinds.AgentKind>
  readonly scorers: ReadonlyArray<ScorerKinds.ScorerKind>
  readonly datasets: ReadonlyArray<DatasetFormats.DatasetFormat>
  readonly outputs: ReadonlyArray<OutputFormats.OutputFormat>
  readonly stores: ReadonlyArray<ResultsStores.ResultsStore>
}

/**
 * This package's kinds.
 *
 * @category registry
 * @since 0.3.0
 */
export const builtIn: Kinds = {
  agents: AgentKinds.builtIn,
  scorers: ScorerKinds.builtIn,
  datasets: DatasetFormats.builtIn,
  outputs: OutputFormats.builtIn,
  stores: ResultsStores.builtIn
}

export { Registry } from "./internal/kinds.ts"

/**
 * This package's kinds with a program's own added: each list of `extra`
 * after the built-in ones, except the stores, which come first (a store is
 * chosen by the first whose `matches` takes the file name, and the JSONL one
 * takes any).
 *
 * **Example** (A CLI with a results store of one's own)
 *
 * ```ts
 * import { Kinds } from "agent-trials"
 *
 * declare const tsv: Kinds.Kinds["stores"][number]
 * export const kinds = Kinds.extend({ stores: [tsv] })
 * ```
 *
 * @category constructors
 * @since 0.7.0
 */
export const extend = (extra: Partial<Kinds>): Kinds => ({
  agents: [...builtIn.agents, ...(extra.agents ?? [])],
  scorers: [...builtIn.scorers, ...(extra.scorers ?? [])],
  datasets: [...builtIn.datasets, ...(extra.datasets ?? [])],
  outputs: [...builtIn.outputs, ...(extra.outputs ?? [])],
  stores: [...(extra.stores ?? []), ...builtIn.stores]
})

/**
 * The `Registry` service holding exactly `kinds`: what `Cli.make(kinds)`
 * provides.
 *
 * @category layers
 * @since 0.7.0
 */
export const layerOf = (kinds: Kinds): Layer.Layer<Registry> => Layer.succeed(Registry)(kinds)

// One layer of the built-in kinds, holding `builtIn` itself.
const builtInLayer: Layer.Layer<Registry> = layerOf(builtIn)

/**
 * The `Registry` service holding this package's kinds and `extra`
 * (`extend(extra)`); `layer()` holds the built-in kinds alone.
 *
 * **Example** (A run that knows an agent kind of one's own)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Kinds, type AgentKinds } from "agent-trials"
 *
 * declare const echo: AgentKinds.AgentKind
 * export const withEcho = <A, E, R>(program: Effect.Effect<A, E, R>) =>
 *   program.pipe(Effect.provide(Kinds.layer({ agents: [echo] })))
 * ```
 *
 * @category layers
 * @since 0.7.0
 */
export const layer = (extra?: Partial<Kinds>): Layer.Layer<Registry> =>
  extra === undefined ? builtInLayer : layerOf(extend(extra))
