/**
 * What differs between two run definitions, as the flags that give each:
 * what `--resume` names when it refuses to continue another run.
 *
 * @internal
 */
import * as Labels from "../../scoring/Labels.ts"
import * as SummaryText from "../../scoring/SummaryText.ts"
import type { RunDefinition, Source } from "../RunDefinition.ts"

/** @internal */
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** How a definition without `read` read its tasks file. @internal */
export const JSONL_AS_IS = { format: "jsonl", map: null, json_path: null } as const

const readText = (read: NonNullable<RunDefinition["read"]>) =>
  [
    `--format ${read.format}`,
    read.map === null ? "no --map" : `--map ${read.map}`,
    ...(read.json_path === null ? [] : [`--json-path ${read.json_path}`])
  ].join(" ")

const sourceText = (source: Source): string =>
  "synthetic" in source
    ? `--synthetic ${source.synthetic}`
    : "stdin" in source
    ? "--tasks -"
    : "hf" in source
    ? `--tasks ${source.hf}`
    : `--tasks ${source.tasks}`

const sameSource = (a: Source, b: Source): boolean =>
  "tasks" in a && "tasks" in b ? a.tasks === b.tasks : same(a, b)

const agentFlag = (agent: string) => agent.startsWith("cluster:") ? `--cluster ${agent.slice("cluster:".length)}` : `--agent ${agent}`
const optional = (flag: string, value: string | null) => value === null ? `no ${flag}` : `${flag} ${value}`
const scorersText = (scorers: ReadonlyArray<string>) =>
  scorers.length === 0 ? "no scorers" : scorers.map((s) => `--score ${s}`).join(" ")

const clusterFlag = (by: string | null) =>
  by === null ? "--stderr-cluster none" : by === "task" ? "standard errors clustered by task" : `--stderr-cluster ${by}`
const groupsText = (paths: ReadonlyArray<string>) =>
  paths.length === 0 ? "no --group-by" : paths.map((p) => `--group-by ${p}`).join(" ")

/**
 * What differs between the definition a results file was written with and
 * this run's, as flags: `[["--epochs 3", "--epochs 2"]]`. Empty when they
 * define the same run; a tasks file whose content changed is the same
 * source (see `check`).
 *
 * @category comparing
 * @since 0.1.0
 */
export const differences = (
  recorded: RunDefinition,
  now: RunDefinition
): ReadonlyArray<readonly [then: string, now: string]> => {
  const out: Array<readonly [string, string]> = []
  if (recorded.agent !== now.agent) out.push([agentFlag(recorded.agent), agentFlag(now.agent)])
  if (recorded.model !== now.model) out.push([optional("--model", recorded.model), optional("--model", now.model)])
  if (!same([...recorded.scorers].sort(), [...now.scorers].sort())) {
    out.push([scorersText(recorded.scorers), scorersText(now.scorers)])
  }
  if (recorded.pass !== now.pass) out.push([optional("--pass", recorded.pass), optional("--pass", now.pass)])
  if (recorded.judge_model !== now.judge_model) {
    out.push([optional("--judge-model", recorded.judge_model), optional("--judge-model", now.judge_model)])
  }
  if (recorded.epochs !== now.epochs) out.push([`--epochs ${recorded.epochs}`, `--epochs ${now.epochs}`])
  const clusterOf = (d: RunDefinition) => d.stderr_cluster === undefined ? Labels.clusterBy(undefined, d.epochs) : d.stderr_cluster
  const clusterThen = clusterOf(recorded)
  const clusterNow = clusterOf(now)
  // Each side at its epochs' default is the --epochs difference itself, not another one.
  const bothDefault = clusterThen === Labels.clusterBy(undefined, recorded.epochs) &&
    clusterNow === Labels.clusterBy(undefined, now.epochs)
  if (clusterThen !== clusterNow && !bothDefault) out.push([clusterFlag(clusterThen), clusterFlag(clusterNow)])
  if (!same(recorded.group_by ?? [], now.group_by ?? [])) {
    out.push([groupsText(recorded.group_by ?? []), groupsText(now.group_by ?? [])])
  }
  if (!sameSource(recorded.dataset, now.dataset)) out.push([sourceText(recorded.dataset), sourceText(now.dataset)])
  // Synthetic tasks have no `read`; a tasks file's definition without one read JSONL as it is.
  const readThen = recorded.read ?? ("synthetic" in recorded.dataset ? undefined : JSONL_AS_IS)
  const readNow = now.read ?? ("synthetic" in now.dataset ? undefined : JSONL_AS_IS)
  if (readThen !== undefined && readNow !== undefined && !same(readThen, readNow)) out.push([readText(readThen), readText(readNow)])
  if (!same(recorded.rows, now.rows)) {
    out.push([`rows ${SummaryText.rowsText(recorded.rows)}`, `rows ${SummaryText.rowsText(now.rows)}`])
  }
  return out
}
