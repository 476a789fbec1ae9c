/**
 * The registries a program reads its kinds from: the agent kinds (`--agent`),
 * the scorer kinds (`--score`),
 * the dataset formats (`--tasks`, `--format`) and the outputs of a run
 * (`--summary`, `--report`), and the results stores (`--out`).
 * The CLI is made from one `Kinds` (its help and parsing derived from it);
 * `builtIn` is this package's, and a program of one's own may extend it.
 *
 * @since 0.3.0
 */
import * as AgentKinds from "../agents/AgentKinds.ts"
import * as DatasetFormats from "../datasets/DatasetFormats.ts"
import * as ResultsStores from "../results/ResultsStores.ts"
import * as ScorerKinds from "../scoring/ScorerKinds.ts"
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
