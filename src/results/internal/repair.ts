/**
 * A record a later stage made unwritable, mended without losing what was
 * paid for: the agent's output and the trial's status stay, and only the
 * part that cannot be written changes, saying so. A score that cannot be
 * written becomes that scorer's error (`InvalidScore`, value 0, not passed:
 * never a pass on a value nobody can read); a cost that is not finite is
 * dropped; a label that cannot be written is dropped. Each drop is noted in
 * the record's `metadata.unrecorded`. A problem in the output itself, the
 * trial's error or its times is not mended here (`undefined`).
 *
 * @internal
 */
import type { AgentEvalTrial, Score, TrialMetadata } from "../../domain/Trial.ts"

/**
 * Where a record cannot be written and why, as `writable` or the writer's
 * number check name it (`record.scores.odd.value`).
 *
 * @internal
 */
export interface Problem {
  readonly at: string
  readonly why: string
}

/**
 * `trial` with the part at `problem.at` mended, or `undefined` when that
 * part is the output, the error or the times, which only a failed record
 * can replace.
 *
 * @internal
 */
export const mend = (trial: AgentEvalTrial, problem: Problem): AgentEvalTrial | undefined => {
  const said = `${problem.at} ${problem.why}`
  // A copy may read a getter that throws again: then it cannot be mended.
  try {
    if (problem.at.endsWith(".usage.cost_usd")) return dropCost(trial, problem.at, said)
    const score = keyAt(trial.scores, "record.scores", problem.at)
    if (score !== undefined) return scoreError(trial, score, said)
    const label = keyAt(trial.metadata, "record.metadata", problem.at)
    if (label !== undefined && !ours.has(label)) return dropLabel(trial, label, said)
  } catch {
    return undefined
  }
  return undefined
}

// The metadata the runner sets, which a record cannot do without.
const ours = new Set(["started_at", "finished_at", "latency_ms"])

// The key of `object` whose path (`prefix.key` or `prefix["a key"]`) `at` is or is under.
const keyAt = (object: object | undefined, prefix: string, at: string): string | undefined => {
  if (object === undefined || !at.startsWith(prefix)) return undefined
  const rest = at.slice(prefix.length)
  for (const key of Object.keys(object)) {
    for (const spelled of [`.${key}`, `[${JSON.stringify(key)}]`]) {
      if (rest === spelled || (rest.startsWith(spelled) && /^[.[]/.test(rest.slice(spelled.length)))) return key
    }
  }
  return undefined
}

const noted = (metadata: TrialMetadata, note: string, without?: string): TrialMetadata => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(metadata)) {
    if (key !== without) Object.defineProperty(out, key, { value: metadata[key], enumerable: true, writable: true, configurable: true })
  }
  const before = out["unrecorded"]
  out["unrecorded"] = [...(Array.isArray(before) ? before : []), note]
  return out as TrialMetadata
}

const scoreError = (trial: AgentEvalTrial, name: string, said: string): AgentEvalTrial => {
  const scores: Record<string, Score> = {}
  for (const key of Object.keys(trial.scores!)) {
    const score: Score = key !== name ? trial.scores![key]! : {
      value: 0,
      passed: false,
      error: { type: "InvalidScore", message: `the ${name} scorer's score cannot be recorded: ${said}`, occurred_at: trial.metadata.finished_at }
    }
    Object.defineProperty(scores, key, { value: score, enumerable: true, writable: true, configurable: true })
  }
  return { ...trial, scores }
}

const dropLabel = (trial: AgentEvalTrial, label: string, said: string): AgentEvalTrial => ({
  ...trial,
  metadata: noted(trial.metadata, `${said}: the label is not recorded`, label)
})

// The usage objects a cost may be in, by the path the writer's check names.
const dropCost = (trial: AgentEvalTrial, at: string, said: string): AgentEvalTrial | undefined => {
  const usageAt = at.slice(0, -".cost_usd".length)
  const withoutCost = <U extends { readonly cost_usd?: number }>(usage: U): U => {
    const { cost_usd: _, ...rest } = usage
    return rest as U
  }
  const metadata = noted(trial.metadata, `${said}: the cost is not recorded`)
  const { output, error, scores } = trial
  if (usageAt === "record.output.usage" && output?.usage !== undefined) {
    return { ...trial, output: { ...output, usage: withoutCost(output.usage) }, metadata }
  }
  if (usageAt === "record.error.usage" && error?.usage !== undefined) {
    return { ...trial, error: { ...error, usage: withoutCost(error.usage) }, metadata }
  }
  const score = keyAt(scores, "record.scores", usageAt)
  if (score !== undefined && usageAt.endsWith(".usage") && scores![score]!.usage !== undefined) {
    const usage = withoutCost(scores![score]!.usage!)
    return { ...trial, scores: { ...scores, [score]: { ...scores![score]!, usage } }, metadata }
  }
  const step = /^record\.(output|error)\.trajectory\[(\d+)\]\.usage$/.exec(usageAt)
  const holder = step?.[1] === "output" ? output : step?.[1] === "error" ? error : undefined
  const steps = holder?.trajectory
  const index = Number(step?.[2])
  if (holder === undefined || steps?.[index]?.usage === undefined) return undefined
  const mended = steps.map((s, i) => i === index ? { ...s, usage: withoutCost(s.usage!) } : s)
  return step![1] === "output"
    ? { ...trial, output: { ...output!, trajectory: mended }, metadata }
    : { ...trial, error: { ...error!, trajectory: mended }, metadata }
}
