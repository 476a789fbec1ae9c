/**
 * The keys a config file may hold: the long flag names of every command that
 * reads it (`run`, `score`, `report`, `compare`). Each command takes the keys
 * it has; a key none has is refused.
 *
 * @since 0.8.0
 */
import type * as Kinds from "../Kinds.ts"
import * as CompareOptions from "./Compare.ts"
import * as ReportOptions from "./Report.ts"
import { keysOf } from "./Resolve.ts"
import * as RunOptions from "./Run.ts"
import * as ScoreOptions from "./Score.ts"

/**
 * The keys of every command's options, over these kinds.
 *
 * @category keys
 * @since 0.8.0
 */
export const known = (kinds: Kinds.Kinds): ReadonlySet<string> =>
  keysOf(
    RunOptions.options(kinds),
    RunOptions.outputs(kinds),
    ScoreOptions.options(kinds),
    ScoreOptions.outputs(kinds),
    ReportOptions.options,
    CompareOptions.options,
    CompareOptions.outputs(kinds)
  )
