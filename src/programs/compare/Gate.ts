/**
 * What the gates of `compare` say: the scorers that regressed (under Holm)
 * and those whose interval reaches -M (`--non-inferiority M`), each named
 * with the figures that decided it.
 *
 * @internal
 */
import type { Comparison } from "../../report/compare/Model.ts"

const formatP = (p: number): string => (p < 1e-4 ? p.toExponential(1) : p.toFixed(4))

/** The regressed scorers with their change, interval and Holm-adjusted p; undefined when none. */
export const regression = (c: Comparison): string | undefined => {
  if (c.regressed.length === 0) return undefined
  const m = c.judged.length
  const which = c.scorers.filter((s) => c.regressed.includes(s.name)).map((s) =>
    `${s.name} (delta ${s.delta!.toFixed(4)}, 95% CI [${s.ci95![0].toFixed(4)}, ${s.ci95![1].toFixed(4)}], ` +
    `Holm-adjusted p ${formatP(s.p_holm!)} of ${m} scorer${m === 1 ? "" : "s"} judged)`
  )
  return `regression: ${which.join("; ")}`
}

/** The scorers of both files whose interval does not lie above -margin; undefined when none. */
export const notNonInferior = (
  c: Comparison,
  margin: number
): { readonly message: string; readonly scorers: Array<string> } | undefined => {
  const failing = c.scorers.filter((s) => s.ci95 === null || !(s.ci95[0] > -margin))
  if (failing.length === 0) return undefined
  const which = failing.map((s) =>
    s.ci95 === null
      ? `${s.name} (no interval: ${s.n} paired task${s.n === 1 ? "" : "s"})`
      : `${s.name} (95% CI lower bound ${s.ci95[0].toFixed(4)})`
  )
  return {
    message: `not non-inferior within ${margin} (the 95% CI must lie above ${-margin}): ${which.join("; ")}`,
    scorers: failing.map((s) => s.name)
  }
}
