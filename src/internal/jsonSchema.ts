/**
 * JSON Schemas compiled by ajv (drafts 06, 07, 2019-09 and 2020-12, the
 * draft read from `$schema`, 2020-12 without one), loaded on demand so that
 * importing agent-trials loads nothing but effect; and a validation error as
 * text. Shared by the `json-schema:` scorer and plain module tools.
 *
 * @internal
 */
import { Effect } from "effect"
import type { AnySchemaObject, ErrorObject, ValidateFunction } from "ajv"
import { describe as describeCause } from "./describe.ts"

const describe = (error: unknown): string => describeCause(error, { max: 500, clip: "all" })

const DRAFTS: Record<string, "06" | "07" | "2019" | "2020"> = {
  "http://json-schema.org/draft-06/schema": "06",
  "http://json-schema.org/draft-07/schema": "07",
  "https://json-schema.org/draft/2019-09/schema": "2019",
  "https://json-schema.org/draft/2020-12/schema": "2020"
}

/**
 * Compiles a schema; a string failure is the problem, worded to follow
 * "the schema ...".
 *
 * @internal
 */
export const compile = (schema: unknown): Effect.Effect<ValidateFunction, string> =>
  Effect.gen(function*() {
    if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
      return yield* Effect.fail("is not a JSON Schema: a schema is an object or a boolean")
    }
    const declared = typeof schema === "object" ? (schema as { readonly $schema?: unknown }).$schema : undefined
    const draft = declared === undefined ? "2020" : typeof declared === "string" ? DRAFTS[declared.replace(/#$/, "")] : undefined
    if (draft === undefined) {
      return yield* Effect.fail(`has the $schema ${JSON.stringify(declared)}; the drafts known are ${Object.keys(DRAFTS).join(", ")}`)
    }
    const ajv = yield* Effect.tryPromise({
      try: () => validator(draft),
      catch: (e) => `cannot be checked: ajv did not load: ${describe(e)}`
    })
    return yield* Effect.try({
      try: () => ajv.compile(schema as AnySchemaObject | boolean),
      catch: (e) => `is not a valid JSON Schema: ${describe(e)}`
    })
  })

// Loaded on demand: importing agent-trials loads nothing but effect.
const validator = async (draft: "06" | "07" | "2019" | "2020") => {
  const options = { allErrors: true, strict: false, logger: false, validateFormats: false } as const
  if (draft === "2020") return new (await import("ajv/dist/2020.js")).Ajv2020(options)
  if (draft === "2019") return new (await import("ajv/dist/2019.js")).Ajv2019(options)
  const ajv = new (await import("ajv")).Ajv(options)
  if (draft === "06") {
    const meta = await import("ajv/dist/refs/json-schema-draft-06.json", { with: { type: "json" } })
    ajv.addMetaSchema(meta.default as AnySchemaObject)
  }
  return ajv
}

/**
 * One validation error: its JSON pointer (`(root)` for the whole value) and message.
 *
 * @internal
 */
export const errorText = (e: ErrorObject): string =>
  `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? e.keyword}`
