/**
 * `--tools` sources whose spec has a placeholder (`{workspace}`,
 * `{trial_id}`, `{task_id}`, `{epoch}`, `{task.PATH}`): started once per
 * trial, inside it, with the trial's values, so
 * `mcp:stdio:env STATE_FILE={workspace}/state.json node server.js` gives
 * every trial a server of its own over its own state.
 *
 * @since 0.9.0
 */
import { Effect } from "effect"
import type { TrialContext } from "../../domain/Agent.ts"
import { trialId, type AgentEvalTask } from "../../domain/Trial.ts"
import * as Placeholders from "../../workspace/Placeholders.ts"
import type { Tools } from "./Loop.ts"
import * as ToolSources from "./Sources.ts"

/**
 * The specs as they are (`fixed`), and those with a placeholder (`templated`).
 *
 * @category parsing
 * @since 0.9.0
 */
export const split = (
  specs: ReadonlyArray<ToolSources.Spec>,
  sources?: ReadonlyArray<ToolSources.ToolSource>
): { readonly fixed: ReadonlyArray<ToolSources.Spec>; readonly templated: ReadonlyArray<ToolSources.Spec> } => {
  const templated = specs.filter((spec) => Placeholders.has(ToolSources.sourceOf(spec, sources).format(spec)))
  return { fixed: specs.filter((spec) => !templated.includes(spec)), templated }
}

/**
 * The templated specs' tools for one trial, connected in the current scope
 * (the trial's): each spec's text with the trial's values, parsed again.
 *
 * @category constructors
 * @since 0.9.0
 */
export const connect = (
  specs: ReadonlyArray<ToolSources.Spec>,
  task: AgentEvalTask,
  trial: TrialContext | undefined,
  options: ToolSources.ConnectOptions,
  sources?: ReadonlyArray<ToolSources.ToolSource>
): Effect.Effect<Tools, ToolSources.ToolConnectError | ToolSources.McpServerFailed, ToolSources.Requirements> =>
  Effect.gen(function*() {
    const values: Placeholders.Values = {
      workspace: trial?.workspace,
      trial_id: trial?.id ?? trialId(task.id, trial?.epoch),
      task_id: task.id,
      epoch: trial?.epoch,
      task
    }
    const expanded: Array<ToolSources.Spec> = []
    for (const spec of specs) {
      const text = ToolSources.sourceOf(spec, sources).format(spec)
      const done = Placeholders.expand(text, values)
      if ("problem" in done) return yield* new ToolSources.ToolConnectError({ where: `--tools ${text}`, problem: done.problem })
      const parsed = ToolSources.parse(done.text, sources)
      if (typeof parsed === "string") return yield* new ToolSources.ToolConnectError({ where: `--tools ${text}`, problem: parsed })
      expanded.push(parsed)
    }
    return yield* ToolSources.connectAll(expanded, options, sources)
  })
