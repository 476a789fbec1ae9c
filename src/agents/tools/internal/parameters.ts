/**
 * The parameters of a plain module tool, as the model is sent them (a JSON
 * Schema) and as its arguments are checked before `execute` runs. They may
 * be declared as `parameters` or, as the Vercel AI SDK's `tool()` has them,
 * `inputSchema`, and be
 * - a JSON Schema object (checked by ajv);
 * - a Standard Schema that gives its JSON Schema (`~standard.jsonSchema`,
 *   Standard JSON Schema v1: Zod 4 schemas do), checked by its own
 *   `~standard.validate`, whose output `execute` gets;
 * - an AI SDK schema (`jsonSchema(...)`, `asSchema(...)`): its `jsonSchema`,
 *   checked by its `validate` when it has one, else by ajv;
 * - an Effect `Schema`: its JSON Schema as `effect/ai` makes it, decoded.
 * Anything else, and a Standard Schema without a JSON Schema, is refused
 * with the reason: a tool that declared arguments is never sent as taking
 * none.
 *
 * @internal
 */
import { Effect, Schema } from "effect"
import { Tool } from "effect/ai"
import { compile, errorText } from "../../../internal/jsonSchema.ts"
import { describe } from "../../../internal/describe.ts"

/**
 * A tool's parameters: the JSON Schema sent, and the check of a call's
 * arguments (the value `execute` gets, or why they do not fit).
 *
 * @internal
 */
export interface Parameters {
  readonly jsonSchema: Record<string, unknown>
  readonly check: (args: unknown) => Effect.Effect<unknown, string>
}

const NONE = { type: "object", properties: {} } as const

// The AI SDK marks its schemas with this registered symbol (`asSchema`, `jsonSchema`).
const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema")

// Tried in this order: draft-07 is what the AI SDK sends, 2020-12 the current draft.
const TARGETS = ["draft-07", "draft-2020-12"] as const

/**
 * The parameters of tool `name`; a failure is the whole problem, worded to
 * follow the `--tools` spec (`the parameters of tool "x" ...`).
 *
 * @internal
 */
export const parametersOf = (entry: Record<string, unknown>, name: string): Effect.Effect<Parameters, string> => {
  const key = entry["parameters"] !== undefined ? "parameters" : entry["inputSchema"] !== undefined ? "inputSchema" : undefined
  if (key === undefined) return fromJsonSchema(NONE, name, "parameters")
  const declared = entry[key]
  const what = `the ${key} of tool "${name}"`
  if ((typeof declared === "object" && declared !== null) || typeof declared === "function") {
    const value = declared as Record<PropertyKey, unknown>
    if (Schema.isSchema(declared)) return fromEffectSchema(declared, name, key)
    if (AI_SDK_SCHEMA in value) return fromAiSdk(value, name, key)
    if (isObject(value["~standard"])) return fromStandard(value["~standard"], name, key)
  }
  if (!isPlainObject(declared)) {
    return Effect.fail(
      `${what} ${kindOf(declared)}: expected a JSON Schema object, a Zod schema or a Standard Schema with a JSON Schema`
    )
  }
  return fromJsonSchema(declared, name, key)
}

const fromJsonSchema = (schema: Record<string, unknown>, name: string, key: string): Effect.Effect<Parameters, string> =>
  Effect.map(checked(schema, name, key), (validate) => ({ jsonSchema: schema, check: ajvCheck(name, validate) }))

const fromEffectSchema = (schema: Schema.Top, name: string, key: string): Effect.Effect<Parameters, string> =>
  Effect.gen(function*() {
    const json = yield* Effect.try({
      try: () => Tool.getJsonSchemaFromSchema(schema as never) as unknown,
      catch: (e) => `the ${key} of tool "${name}" (an Effect Schema) cannot be turned into a JSON Schema: ${describe(e, { max: 300, clip: "all" })}`
    })
    if (!isObject(json)) return yield* Effect.fail(`the ${key} of tool "${name}" (an Effect Schema) gave no JSON Schema object`)
    yield* checked(json, name, key)
    const decode = Schema.decodeUnknownEffect(schema as Schema.Codec<unknown, unknown>)
    return {
      jsonSchema: json,
      check: (args) => Effect.mapError(decode(args), (e) => misfit(name, [e.message]))
    }
  })

const fromAiSdk = (schema: Record<PropertyKey, unknown>, name: string, key: string): Effect.Effect<Parameters, string> =>
  Effect.gen(function*() {
    const what = `the ${key} of tool "${name}"`
    const json = yield* Effect.tryPromise({
      try: () => Promise.resolve(schema["jsonSchema"]),
      catch: (e) => `${what} (an AI SDK schema) gave no JSON Schema: ${describe(e, { max: 300, clip: "all" })}`
    })
    if (!isObject(json)) return yield* Effect.fail(`${what} (an AI SDK schema) gave no JSON Schema object: ${kindOf(json)}`)
    const validate = yield* checked(json, name, key)
    const own = schema["validate"]
    if (typeof own !== "function") {
      return { jsonSchema: json, check: ajvCheck(name, validate) }
    }
    return {
      jsonSchema: json,
      check: ownCheck(name, (args) => (own as (value: unknown) => unknown).call(schema, args), (result) => {
        const r = result as { readonly success?: unknown; readonly value?: unknown; readonly error?: unknown }
        return r?.success === true
          ? Effect.succeed(r.value)
          : Effect.fail(misfit(name, [r?.error instanceof Error ? r.error.message : describe(r?.error, { max: 300, clip: "all" })]))
      })
    }
  })

const fromStandard = (standard: Record<string, unknown>, name: string, key: string): Effect.Effect<Parameters, string> =>
  Effect.gen(function*() {
    const vendor = typeof standard["vendor"] === "string" ? standard["vendor"] : "unknown"
    const what = `the ${key} of tool "${name}" (a Standard Schema of vendor "${vendor}")`
    const converter = standard["jsonSchema"]
    const input = isObject(converter) ? converter["input"] : undefined
    if (typeof input !== "function") {
      return yield* Effect.fail(
        `${what} cannot be turned into a JSON Schema: it has no ~standard.jsonSchema (Standard JSON Schema); ` +
          "declare the parameters as a JSON Schema object, or with a library that gives one (Zod 4.6 does)"
      )
    }
    const problems: Array<string> = []
    let json: unknown
    for (const target of TARGETS) {
      try {
        json = (input as (options: { readonly target: string }) => unknown).call(converter, { target })
        break
      } catch (e) {
        problems.push(`${target}: ${describe(e, { max: 300, clip: "all" })}`)
      }
    }
    if (json === undefined) return yield* Effect.fail(`${what} cannot be turned into a JSON Schema: ${problems.join("; ")}`)
    if (!isObject(json)) return yield* Effect.fail(`${what} gave no JSON Schema object: ${kindOf(json)}`)
    // Checked that it compiles; the arguments are checked by the schema itself.
    yield* checked(json, name, key)
    const validate = standard["validate"]
    if (typeof validate !== "function") return yield* Effect.fail(`${what} has no ~standard.validate function`)
    return {
      jsonSchema: json,
      check: ownCheck(name, (args) => (validate as (value: unknown) => unknown).call(standard, args), (result) => {
        const issues = (result as { readonly issues?: unknown })?.issues
        return Array.isArray(issues)
          ? Effect.fail(misfit(name, issues.map(issueText)))
          : Effect.succeed((result as { readonly value?: unknown })?.value)
      })
    }
  })

// The check by ajv, for a schema with no validate function of its own.
const ajvCheck = (name: string, validate: Effect.Success<ReturnType<typeof checked>>) => (args: unknown): Effect.Effect<unknown, string> =>
  validate(args) ? Effect.succeed(args) : Effect.fail(misfit(name, (validate.errors ?? []).map(errorText)))

// The check by a schema's own validate function, which may answer at once
// or with a promise, and may throw or reject (a misfit naming why); `read`
// turns its answer into the arguments `execute` gets or the misfit.
const ownCheck = (
  name: string,
  validate: (args: unknown) => unknown,
  read: (result: unknown) => Effect.Effect<unknown, string>
) =>
(args: unknown): Effect.Effect<unknown, string> =>
  Effect.tryPromise({
    try: () => Promise.resolve(validate(args)),
    catch: (e) => misfit(name, [describe(e, { max: 300, clip: "all" })])
  }).pipe(Effect.flatMap(read))

// Compiles the schema (refusing one ajv cannot read) and holds a tool's
// arguments to be an object.
const checked = (schema: Record<string, unknown>, name: string, key: string) =>
  Effect.gen(function*() {
    const validate = yield* Effect.mapError(compile(schema), (problem) => `the parameters schema of tool "${name}" ${problem}`)
    const type = schema["type"]
    if (type !== undefined && type !== "object" && !(Array.isArray(type) && type.includes("object"))) {
      return yield* Effect.fail(
        `the ${key} of tool "${name}" describe ${JSON.stringify(type)}, but a tool's arguments are an object (JSON Schema type "object")`
      )
    }
    return validate
  })

const misfit = (name: string, problems: ReadonlyArray<string>): string =>
  `the arguments do not fit the parameters of ${name}: ${problems.slice(0, 5).join("; ")}`

// A Standard Schema issue as ajv's errors read: its JSON pointer, then its message.
const issueText = (issue: unknown): string => {
  const path = (issue as { readonly path?: unknown })?.path
  const keys = Array.isArray(path) ? path.map((p) => isObject(p) && "key" in p ? p["key"] : p) : []
  const message = (issue as { readonly message?: unknown })?.message
  return `${keys.length === 0 ? "(root)" : `/${keys.map(String).join("/")}`} ${typeof message === "string" ? message : "does not fit"}`
}

const kindOf = (value: unknown): string => {
  if (value === null) return "are null"
  if (Array.isArray(value)) return "are an array"
  if (typeof value === "object" || typeof value === "function") {
    const ctor = (value as { readonly constructor?: { readonly name?: unknown } }).constructor?.name
    if ("_def" in value) return `are a Zod 3 schema (${String(ctor ?? "object")}), which gives no JSON Schema`
    if (typeof value === "function") return "are a function"
    return `are a ${typeof ctor === "string" && ctor !== "" && ctor !== "Object" ? `${ctor} object` : "object"}`
  }
  return `are a ${typeof value}`
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isPlainObject = (u: unknown): u is Record<string, unknown> => {
  if (!isObject(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}
