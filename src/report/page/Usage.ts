/**
 * The report's usage cards: what the file's trials spent, as the file's own
 * summary states it (`Summary.make` over the one pass's accumulator, whose
 * usage tally counts each record's agent and judge usage as it is read), so
 * the cards print the figures of the run's `--summary` JSON, in the words
 * of its text (`usdText`, `tokensText`). Tokens (agent and judges apart, by
 * kind), tokens per trial (mean, p50, p95), and, when any usage carries a
 * `cost_usd` (a run with `--pricing`), the cost, the cost per trial and the
 * cost per passed trial. A file whose records carry no usage has no cards.
 *
 * @internal
 */
import type * as Summary from "../../summary/Summary.ts"
import { tokensText, usdText } from "../../summary/Usage.ts"
import * as Html from "../Html.ts"

// A side's tokens by kind, as the summary's text says them.
const kinds = (t: Summary.UsageTotals): string =>
  `input ${tokensText(t.input_tokens)}` + (t.cached_input_tokens > 0 ? ` (${tokensText(t.cached_input_tokens)} cached)` : "") +
  ` · output ${tokensText(t.output_tokens)}` + (t.reasoning_tokens > 0 ? ` (${tokensText(t.reasoning_tokens)} reasoning)` : "")

// The page's blank for a figure that has none (the summary's text prints "-").
const or = (show: (x: number) => string) => (x: number | null): string => (x === null ? "—" : show(x))
const tokens = or(tokensText)
const usd = or(usdText)

const percentiles = (p: Summary.PerTrial, show: (x: number | null) => string): string =>
  `p50 ${show(p.p50)} · p95 ${show(p.p95)}`

/**
 * The usage section of `file` (the file's summary), or nothing when its
 * records carry no usage. `run` is the run's own summary, when given: the
 * models its pricing file did not list are named.
 *
 * @internal
 */
export const usageSection = (file: Summary.Summary, run?: Summary.Reported): string => {
  const u = file.usage
  if (u === undefined) return ""
  const priced = u.cost_usd !== null
  // As the summary's text: a judge line only when judges spent something.
  const judged = u.judge.total_tokens > 0 || (u.judge.cost_usd ?? 0) > 0
  const passed = file.scoring === undefined
    ? `${Html.formatNumber(u.passed_trials)} completed trials (not scored)`
    : `${Html.formatNumber(u.passed_trials)} passed trials (${file.scoring.pass_rule})`
  const stats: Array<Html.Stat> = [
    {
      label: "Tokens",
      value: tokensText(u.total_tokens),
      note: `agent ${tokensText(u.agent.total_tokens)}` + (judged ? ` · judge ${tokensText(u.judge.total_tokens)}` : "")
    },
    { label: "Agent tokens", value: tokensText(u.agent.total_tokens), note: kinds(u.agent) },
    ...(judged ? [{ label: "Judge tokens", value: tokensText(u.judge.total_tokens), note: kinds(u.judge) }] : []),
    { label: "Tokens per trial (mean)", value: tokens(u.per_trial.tokens.mean), note: percentiles(u.per_trial.tokens, tokens) },
    ...(priced
      ? [
        {
          label: "Cost",
          value: usd(u.cost_usd),
          note: `agent ${usd(u.agent.cost_usd)}` + (judged ? ` · judge ${usd(u.judge.cost_usd)}` : "")
        },
        ...(u.per_trial.cost_usd === null ? [] : [{
          label: "Cost per trial (mean)",
          value: usd(u.per_trial.cost_usd.mean),
          note: percentiles(u.per_trial.cost_usd, usd)
        }]),
        { label: "Cost per passed trial", value: usd(u.cost_per_passed_trial_usd), note: `over ${passed}` }
      ]
      : [])
  ]
  const unpriced = run?.usage?.unpriced_models ?? []
  return Html.section("Usage", Html.stats(stats), {
    id: "usage",
    note: `What the ${Html.formatNumber(u.trials)} trials whose records carry usage spent (of ${Html.formatNumber(file.trials.this_run.total)}): ` +
      `the agent's calls, and the judges' own (a score's usage). Per trial: over those trials, agent and judges together ` +
      `(p50 and p95 within ±2.5%). ` +
      (priced
        ? `A cost is the records' cost_usd (run --pricing); a usage without one counts as $0.`
        : `Not priced: no record carries a cost_usd (run with --pricing FILE).`) +
      (unpriced.length === 0 ? "" : ` Not in the run's pricing file (priced at $0): ${unpriced.join(", ")}.`)
  })
}
