/**
 * The options of `compare`: one entry each, from which its flags, their
 * help and the config file's keys are derived.
 *
 * @since 0.8.0
 */
import type * as Kinds from "../Kinds.ts"
import * as Options from "../Options.ts"
import * as Option from "./Option.ts"

/**
 * The options of `compare`.
 *
 * @category options
 * @since 0.8.0
 */
export const options = {
  pass: Option.text(
    "pass",
    "The scorer whose verdict decides whether a trial passed, in both files (default: each run's recorded --pass, else every scorer both files carry)",
    { env: false }
  ),
  json: Option.withPath(Option.text("json", "Also write the comparison as JSON to this file", { env: false }), "file"),
  html: Option.withPath(Option.text("html", "Also write a self-contained HTML page to this file", { env: false }), "file"),
  failOnRegression: Option.toggle(
    "fail-on-regression",
    "Exit 1 when a scorer's mean dropped with a Holm-adjusted p below 0.05 over the scorers judged (family-wise 5%)"
  ),
  nonInferiority: Option.value(
    "non-inferiority",
    "M",
    Options.Margin,
    undefined,
    "Exit 1 unless every shared scorer's 95% interval of the change lies above -M (M >= 0)",
    { env: false }
  )
}

/**
 * `compare`'s outputs from the registry: one `--FLAG FILE` per output format
 * that says how it is written after `compare` (`writeComparison`); read
 * from the flag or the config file, not from the environment (a run's
 * `AGENT_TRIALS_MARKDOWN` is the run's file).
 *
 * @category options
 * @since 0.9.0
 */
export const outputs = (kinds: Kinds.Kinds) =>
  Object.fromEntries(
    kinds.outputs.filter((o) => o.writeComparison !== undefined).map((o) => [
      o.flag,
      Option.withPath(Option.text(o.flag, o.description, { env: false }), "file")
    ])
  )
