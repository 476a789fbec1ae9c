/**
 * What tokens cost: a pricing file (`--pricing FILE`, YAML or JSON, USD per
 * million tokens by model) and the cost of a usage under it. There is no
 * built-in price table: prices change, and a guessed price is worse than
 * none, so a model the file does not list costs nothing and is named once.
 *
 * @since 0.4.0
 */
import { Effect, FileSystem, Schema, SchemaIssue } from "effect"
import { schemaProblems } from "../domain/internal/failure.ts"
import type { AgentEvalTrial, ModelUsage, Score, Usage } from "../domain/Trial.ts"

/**
 * The largest price a pricing file may give, in USD per million tokens: a
 * dollar a token, over a thousand times the dearest model's price. Under it a
 * cost stays a finite number for any usage a record can hold (token counts
 * are safe integers, below 2^53), and so do the sums over any run; a larger
 * one (a typo such as `1e308`) could make a cost JSON writes as `null`, a
 * record no command could read back.
 *
 * @category pricing
 * @since 0.6.0
 */
export const MAX_PRICE = 1_000_000

// The two checks of a price, known by identity when one fails.
const nonNegative = Schema.isGreaterThanOrEqualTo(0)
const atMostMax = Schema.isLessThanOrEqualTo(MAX_PRICE)
const Price = Schema.Finite.check(nonNegative, atMostMax)

/**
 * A model's prices in USD per million tokens. Without `cached_input`, cached
 * input tokens are charged as input; without `cache_write_input`, so are
 * the input tokens written to a prompt cache.
 *
 * @category schemas
 * @since 0.4.0
 */
export const ModelPrice = Schema.Struct({
  input: Price,
  output: Price,
  cached_input: Schema.optionalKey(Price),
  cache_write_input: Schema.optionalKey(Price)
})
export type ModelPrice = typeof ModelPrice.Type

/**
 * A pricing file: `models: { MODEL: { input, output, cached_input? } }`.
 *
 * @category schemas
 * @since 0.4.0
 */
export const PricingFile = Schema.Struct({
  models: Schema.Record(Schema.String, ModelPrice)
})
export type PricingFile = typeof PricingFile.Type

/**
 * A pricing file that cannot be used: not found, not YAML or JSON, or a
 * field that is unknown, missing or not a price. Exit code 2.
 *
 * @category errors
 * @since 0.4.0
 */
export class InvalidPricing extends Schema.TaggedError<InvalidPricing>()("InvalidPricing", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `--pricing ${this.file}: ${this.problem}`
  }
}

/**
 * The cost in USD of `usage` at `price`:
 * `(input - cached - written) * input + cached * cached_input + written *
 * cache_write_input + output * output`, per million tokens (input counts
 * include cached and cache-written ones, output counts include reasoning
 * ones).
 *
 * **Example** (1,000 input tokens, 400 of them cached, and 200 output tokens)
 *
 * ```ts
 * import { Pricing } from "agent-trials"
 *
 * Pricing.cost(
 *   { input: 0.15, output: 0.6, cached_input: 0.075 },
 *   { input_tokens: 1000, output_tokens: 200, total_tokens: 1200, cached_input_tokens: 400 }
 * ) // 0.00024
 * ```
 *
 * @category pricing
 * @since 0.4.0
 */
export const cost = (price: ModelPrice, usage: Usage): number => {
  const cached = Math.min(usage.cached_input_tokens ?? 0, usage.input_tokens)
  const written = Math.min(usage.cache_write_input_tokens ?? 0, usage.input_tokens - cached)
  const micro = (usage.input_tokens - cached - written) * price.input + cached * (price.cached_input ?? price.input) +
    written * (price.cache_write_input ?? price.input) + usage.output_tokens * price.output
  // Rounded to 1e-12 USD: the sums of float products carry noise below it.
  return Math.round(micro * 1e6) / 1e12
}

/**
 * Prices usages under one pricing file, remembering the models it could not
 * price (each reported once, by `onUnpriced`).
 *
 * @category models
 * @since 0.4.0
 */
export interface Pricing {
  readonly file: string
  readonly models: PricingFile["models"]
  /**
   * `usage` with its `cost_usd` (0 for a model the file does not list, or a
   * usage without a model), and its `user`'s priced by the user's model.
   */
  readonly price: (usage: Usage) => Usage
  /** The models seen that the file does not list, in the order they were met. */
  readonly unpriced: () => ReadonlyArray<string>
}

/**
 * A pricing from a decoded file. `onUnpriced` hears of each model the file
 * does not list, the first time it is met.
 *
 * @category constructors
 * @since 0.4.0
 */
export const make = (file: string, pricing: PricingFile, onUnpriced: (model: string) => void = () => {}): Pricing => {
  const unpriced = new Set<string>()
  const models = pricing.models
  return {
    file,
    models,
    price: (usage) => {
      const priceOf = (one: ModelUsage): number => {
        const model = one.model ?? "(unnamed)"
        const price = Object.hasOwn(models, model) ? models[model] : undefined
        if (price === undefined && !unpriced.has(model)) {
          unpriced.add(model)
          onUnpriced(model)
        }
        return price === undefined ? 0 : cost(price, one)
      }
      const user = usage.user
      if (user === undefined) return { ...usage, cost_usd: priceOf(usage) }
      // A simulated user's model is priced by its own model, apart; an agent
      // that reported nothing (a module agent) has nothing to price.
      const silent = usage.model === undefined && usage.total_tokens === 0
      return { ...usage, cost_usd: silent ? 0 : priceOf(usage), user: { ...user, cost_usd: priceOf(user) } }
    },
    unpriced: () => [...unpriced]
  }
}

/**
 * A trial record with every usage on it priced: its output's (or its
 * error's) and each score's.
 *
 * @category pricing
 * @since 0.4.0
 */
export const priceTrial = (pricing: Pricing, trial: AgentEvalTrial): AgentEvalTrial => {
  let priced = trial
  const output = trial.output
  if (output?.usage !== undefined) priced = { ...priced, output: { ...output, usage: pricing.price(output.usage) } }
  const error = trial.error
  if (error?.usage !== undefined) priced = { ...priced, error: { ...error, usage: pricing.price(error.usage) } }
  const scores = trial.scores
  if (scores !== undefined) {
    let changed: Record<string, Score> | undefined
    for (const name in scores) {
      const score = scores[name]!
      if (score.usage === undefined) continue
      changed ??= { ...scores }
      changed[name] = { ...score, usage: pricing.price(score.usage) }
    }
    if (changed !== undefined) priced = { ...priced, scores: changed }
  }
  return priced
}

/**
 * Reads and checks a pricing file: JSON for a `.json` name, YAML otherwise.
 * A failure names the file and the field at fault.
 *
 * @category constructors
 * @since 0.4.0
 */
export const load = (path: string): Effect.Effect<PricingFile, InvalidPricing, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) => new InvalidPricing({ file: path, problem: `cannot read it: ${e.message}` }))
    )
    const parsed = yield* parse(path, text)
    return yield* decode(path, parsed)
  })

/**
 * Checks a parsed pricing file (what `load` does after parsing).
 *
 * @category constructors
 * @since 0.4.0
 */
export const decode = (file: string, value: unknown): Effect.Effect<PricingFile, InvalidPricing> => {
  const exit = decodeFile(value, { onExcessProperty: "error" })
  if (exit._tag === "Success") return Effect.succeed(exit.value)
  const reason = exit.cause.reasons[0]
  const issue = reason?._tag === "Fail" ? reason.error.issue : undefined
  return Effect.fail(new InvalidPricing({ file, problem: describeFailure(issue, value) }))
}

const decodeFile = Schema.decodeUnknownExit(PricingFile)

const parse = (file: string, text: string): Effect.Effect<unknown, InvalidPricing> =>
  file.endsWith(".json")
    ? Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => new InvalidPricing({ file, problem: `not JSON: ${(e as Error).message}` })
    })
    : Effect.flatMap(Effect.promise(() => import("yaml")), (yaml) =>
      Effect.try({
        try: () => yaml.parse(text, { prettyErrors: true }) as unknown,
        catch: (e) => {
          const error = e as { readonly message: string; readonly linePos?: ReadonlyArray<{ readonly line: number; readonly col: number }> }
          const at = error.linePos?.[0]
          const where = at === undefined ? "" : ` at line ${at.line}, column ${at.col}`
          const first = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "")
          return new InvalidPricing({ file, problem: `not YAML${where}: ${first}` })
        }
      }))

const formatIssue = SchemaIssue.makeFormatterDefault()

// The words for the first thing the Schema found wrong, by its kind and path.
const describeFailure = (issue: SchemaIssue.Issue | undefined, value: unknown): string => {
  const found = issue === undefined ? undefined : schemaProblems(issue)[0]
  const problem = found === undefined ? "not a pricing file" : formatIssue(found.check ?? found.issue)
  if (found === undefined || found.path.length === 0) {
    return `expected an object with models: { MODEL: { input, output, cached_input } }; ${problem.toLowerCase()}`
  }
  const { path } = found
  const field = path.map(String).join(".")
  if (found.issue._tag === "UnexpectedKey") {
    const expected = path.length <= 1 ? "models" : "input, output, cached_input"
    return `unknown field ${field} (expected ${expected})`
  }
  if (found.issue._tag === "MissingKey") return `field ${field} is missing`
  if (found.check?.filter === nonNegative) return `field ${field}: a price must be >= 0 (USD per million tokens)`
  if (found.check?.filter === atMostMax) {
    const model = String(path[1] ?? "")
    const price = (value as { models: Record<string, Record<string, unknown>> }).models[model]?.[String(path[2] ?? "")]
    return `model ${JSON.stringify(model)}, field ${path.slice(2).map(String).join(".")}: ${String(price)} USD per million tokens is over ` +
      `the largest price accepted, ${MAX_PRICE} (a dollar a token): its costs could be too large to record as numbers`
  }
  return `field ${field}: ${problem.replace(/^Expected/, "expected")}`
}
