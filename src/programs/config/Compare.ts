/**
 * The options of `compare`: one entry each, from which its flags, their
 * help and the config file's keys are derived.
 *
 * @since 0.8.0
 */
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
