/**
 * OTLP exports that carry no secret: every string of a batch (span names,
 * attribute and event values, status messages, exception messages and stack
 * traces, log bodies) goes through `redactText` just before it is
 * serialized. So it does not matter which code set it: our spans, Effect's
 * HTTP client (its `url.full` and `url.query`, the error it ends a span
 * with, which quotes the URL), an agent's own spans. A span's status and
 * exception events are computed from its `Exit` inside the exporter when the
 * span ends; the batch is the first place where they are strings we can
 * read.
 *
 * @internal
 */
import { Effect, Layer } from "effect"
import { OtlpSerialization } from "effect/observability"
import { redactParams, redactText } from "../../internal/redact.ts"

/**
 * A copy of an OTLP batch with every string redacted; the value of a
 * `url.query` attribute shown as `redactUrl` shows a query (every value
 * redacted), like the query in `url.full`.
 *
 * @internal
 */
export const redactBatch = <A>(data: A): A => walk(data) as A

const walk = (value: unknown): unknown => {
  if (typeof value === "string") return redactText(value)
  if (Array.isArray(value)) return value.map(walk)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) out[key] = walk(item)
  const query = (out["value"] as { readonly stringValue?: unknown } | undefined)?.stringValue
  if (out["key"] === "url.query" && typeof query === "string") out["value"] = { stringValue: redactParams(query) }
  return out
}

/**
 * `OtlpSerialization.layerJson` with every batch through `redactBatch`.
 *
 * @internal
 */
export const layerJson: Layer.Layer<OtlpSerialization.OtlpSerialization> = Layer.effect(
  OtlpSerialization.OtlpSerialization,
  Effect.gen(function*() {
    const json = yield* OtlpSerialization.OtlpSerialization
    return OtlpSerialization.OtlpSerialization.of({
      traces: (data) => json.traces(redactBatch(data)),
      metrics: (data) => json.metrics(redactBatch(data)),
      logs: (data) => json.logs(redactBatch(data))
    })
  })
).pipe(Layer.provide(OtlpSerialization.layerJson))
