/**
 * `--agent` as a Schema from its text.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { fromString } from "../internal/options.ts"
import * as Spec from "./Spec.ts"

const agentSpecTags = new Set(["Sim", "Module", "Http", "OpenAi"])

/**
 * An `--agent` spec: `sim[:latency=20ms,...]`, `module:PATH[#export]`,
 * `http(s)://URL` or `openai:BASE_URL`, parsed by `AgentSpec.parse` (whose
 * messages name `--agent`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AgentSpec = fromString(
  Schema.declare((u: unknown): u is Spec.AgentSpec =>
    typeof u === "object" && u !== null && agentSpecTags.has((u as { readonly _tag?: unknown })._tag as string)
  ),
  (text) => {
    const spec = Spec.parse(text)
    return typeof spec === "string" ? Result.fail(spec) : Result.succeed(spec)
  },
  (spec) => {
    switch (spec._tag) {
      case "Sim": {
        const o = spec.options
        return `sim:latency=${o.latencyMs}ms,jitter=${o.jitterMs}ms,fail=${o.failRate},seed=${o.seed}`
      }
      case "Module":
        return `module:${spec.file}${spec.exportName === undefined ? "" : `#${spec.exportName}`}`
      case "Http":
        return spec.url
      case "OpenAi":
        return `openai:${spec.baseUrl}`
    }
  }
)
