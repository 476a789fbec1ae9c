/**
 * `json-schema:FILE`: the output's JSON validated against a JSON Schema, by
 * ajv (the most used JSON Schema validator for JavaScript, maintained, with
 * drafts 06, 07, 2019-09 and 2020-12). The schema is compiled once, when the
 * scorer is made; ajv is loaded then too, so a program that never asks for
 * this scorer never loads it.
 *
 * @since 0.2.0
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Score } from "../domain/Trial.ts"
import { describe, make as makeScorer, type Scorer, verdict } from "../domain/Scorer.ts"
import { compile as compileSchema, errorText } from "../internal/jsonSchema.ts"
import { notJson, outputJson } from "./Structured.ts"

/**
 * The schema cannot be read, is not JSON, or is not a valid JSON Schema of a
 * draft ajv knows.
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidSchema extends Schema.TaggedError<InvalidSchema>()("InvalidSchema", {
  /** The schema file, when the schema came from one. */
  file: Schema.optionalKey(Schema.String),
  /** What is wrong: the read error, the JSON error, or the schema's fault. */
  problem: Schema.String,
  /** The file could not be read at all. */
  unreadable: Schema.optionalKey(Schema.Boolean)
}) {
  override get message(): string {
    if (this.file === undefined) return this.problem
    return this.unreadable === true
      ? `cannot read the schema file ${this.file}: ${this.problem}`
      : `the schema file ${this.file} ${this.problem}`
  }
}

/**
 * Options of `make`: the schema (a parsed JSON value), `find` to read JSON
 * inside prose as `json:find` does, and how many validation errors the
 * explanation lists (default 5).
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  readonly schema: unknown
  readonly name?: string | undefined
  readonly find?: boolean | undefined
  readonly maxErrors?: number | undefined
}

/**
 * Makes the scorer: it passes (value 1) when the output's JSON (read as the
 * `json` scorer reads it) is valid; otherwise its explanation lists the first
 * errors, each at its JSON pointer (`(root)` for the whole value). Output
 * that is no JSON fails the score. No reference is needed. The draft is the
 * schema's `$schema` (06, 07, 2019-09 or 2020-12), 2020-12 when it has none;
 * unknown keywords are ignored and `format` is an annotation, not checked,
 * as the 2020-12 specification has it by default.
 *
 * **Example** (An object with a numeric answer)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { JsonSchema } from "agent-trials"
 *
 * const scorer = JsonSchema.make({
 *   schema: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] }
 * })
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = (options: Options): Effect.Effect<Scorer, InvalidSchema> =>
  Effect.map(compile(options.schema), (validate) => {
    const find = options.find === true
    const max = options.maxErrors ?? 5
    return makeScorer(options.name ?? "json-schema", (_task, output) => {
      const parsed = outputJson(output, find)
      if (parsed === undefined) return Effect.succeed(verdict(false, notJson(output, find)))
      if (validate(parsed.value)) return Effect.succeed(verdict(true))
      const errors = validate.errors ?? []
      const shown = errors.slice(0, max).map(errorText)
      const score: Score = verdict(
        false,
        `${errors.length} schema error${errors.length === 1 ? "" : "s"}: ${shown.join("; ")}${errors.length > max ? "; ..." : ""}`
      )
      return Effect.succeed(score)
    })
  })

/**
 * Reads a schema file (resolved from `cwd`) and makes the scorer.
 *
 * @category constructors
 * @since 0.2.0
 */
export const fromFile = (
  file: string,
  options: Omit<Options, "schema"> & { readonly cwd: string }
): Effect.Effect<Scorer, InvalidSchema> =>
  Effect.gen(function*() {
    const text = yield* Effect.tryPromise({
      try: () => fs.readFile(path.resolve(options.cwd, file), "utf8"),
      catch: (e) => new InvalidSchema({ file, problem: describe(e), unreadable: true })
    })
    const schema = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => new InvalidSchema({ file, problem: `is not JSON: ${describe(e)}` })
    })
    return yield* Effect.mapError(
      make({ ...options, schema }),
      (e) => new InvalidSchema({ file, problem: e.message })
    )
  })

const compile = (schema: unknown) => Effect.mapError(compileSchema(schema), (problem) => new InvalidSchema({ problem }))
