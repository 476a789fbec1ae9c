/**
 * Where each option's value comes from, in order: the command line, its
 * `AGENT_TRIALS_*` variable, the config file, its fallback. Every source is
 * decoded by the option's own Schema, so a value is refused with the same
 * words wherever it comes from; a file's refusal adds the file, the line and
 * the key.
 *
 * @since 0.8.0
 */
import { Config, Effect, Option as O, Schema } from "effect"
import * as nodePath from "node:path"
import * as Options from "../Options.ts"
import { type ConfigFile, ConfigFileError, type Entry } from "./File.ts"
import type * as Option from "./Option.ts"

/**
 * A required option no source gave: exit 2.
 *
 * @category errors
 * @since 0.8.0
 */
export class MissingOption extends Schema.TaggedError<MissingOption>()("MissingOption", {
  name: Schema.String
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  /** The flag to give. */
  get flag(): string {
    return `--${this.name}`
  }
  override get message(): string {
    return `Missing required flag: --${this.name} (or ${this.name}: in the config file)`
  }
}

/**
 * What the command line gave of an option: for a value, `Option.some` when
 * the flag was given; for a switch, whether it was; for a list, its values.
 *
 * @category models
 * @since 0.8.0
 */
export type Given = O.Option<unknown> | boolean | ReadonlyArray<unknown>

/**
 * Whether the command line gave the option a value.
 *
 * @category resolving
 * @since 0.8.0
 */
export const isGiven = (option: Option.Option<unknown>, given: Given): boolean =>
  option.kind === "switch"
    ? given === true
    : option.kind === "list"
    ? (given as ReadonlyArray<unknown>).length > 0
    : O.isSome(given as O.Option<unknown>)

// A scheme (`hf:`, `https:`) or stdin: not a path of the file's folder.
const notAPath = (text: string) => text === "-" || /^[A-Za-z][A-Za-z0-9+.-]+:/.test(text) || nodePath.isAbsolute(text)

// `module:./agent.ts#run`, `NAME=not:json-schema:s.json`: the path after the prefix.
const SPEC_PATH = /^((?:[A-Za-z0-9_.-]+=)?(?:not:)*(?:module|effect-ai|json-schema):)(.+)$/

/**
 * A config file's text for an option, its paths resolved against `dir`.
 *
 * @category resolving
 * @since 0.8.0
 */
export const resolvePath = (option: Option.Option<unknown>, text: string, dir: string): string => {
  if (option.path === "file") return notAPath(text) ? text : nodePath.resolve(dir, text)
  if (option.path === "spec") {
    const m = SPEC_PATH.exec(text)
    if (m !== null && !nodePath.isAbsolute(m[2])) return m[1] + nodePath.resolve(dir, m[2])
  }
  return text
}

// One value of the file as the flag's text: a name, a number, true or false.
const scalarText = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined

const describeValue = (value: unknown) => Array.isArray(value) ? "a list" : value === null ? "nothing" : typeof value === "object" ? "a map" : JSON.stringify(value)

/**
 * The value of `option` the file's `entry` gives, decoded as its flag's
 * text would be.
 *
 * @category resolving
 * @since 0.8.0
 */
export const fromEntry = (
  option: Option.Option<unknown>,
  entry: Entry,
  file: ConfigFile
): Effect.Effect<unknown, ConfigFileError> => {
  const bad = (problem: string) => new ConfigFileError({ file: file.file, line: entry.line, key: entry.key, problem })
  const decodeOne = (value: unknown) => {
    const text = scalarText(value)
    if (text === undefined) return Effect.fail(bad(`expected one value, got ${describeValue(value)}`))
    return Options.decode(option.schema, `--${option.name}`)(resolvePath(option, text, file.dir)).pipe(
      Effect.mapError((e) => bad(e.message))
    )
  }
  switch (option.kind) {
    case "switch":
      return entry.value === true || entry.value === "true"
        ? Effect.succeed(true)
        : entry.value === false || entry.value === "false"
        ? Effect.succeed(false)
        : Effect.fail(bad(`expected true or false, got ${describeValue(entry.value)}`))
    case "list":
      return Effect.forEach(Array.isArray(entry.value) ? entry.value : [entry.value], decodeOne)
    case "value":
      return decodeOne(entry.value)
  }
}

const fromEnv = (option: Option.Option<unknown>): Effect.Effect<O.Option<unknown>, Options.InvalidOption> => {
  if (option.env === undefined) return Effect.succeed(O.none())
  // A repeatable option's variable gives one value (AGENT_TRIALS_SCORE=exact); an unreadable one none.
  if (option.kind === "list") {
    return Config.option(Config.String(option.env)).pipe(Effect.map(O.map((v) => [v])), Effect.orElseSucceed(() => O.none()))
  }
  return Options.fromConfig(option.schema, option.env)
}

/**
 * The value of each option: the command line's, else its variable's, else
 * the file's, else its fallback; a required option none gives fails.
 *
 * @category resolving
 * @since 0.8.0
 */
export const resolve = <Os extends Readonly<Record<string, Option.Option<any>>>>(
  options: Os,
  given: { readonly [K in keyof Os]: Given },
  file: ConfigFile | undefined
): Effect.Effect<Option.All<Os>, Options.InvalidOption | ConfigFileError | MissingOption> =>
  Effect.map(
    Effect.forEach(Object.entries(options), ([key, option]) => {
      const flag = given[key]
      if (isGiven(option, flag)) {
        return Effect.succeed([key, option.kind === "value" ? (flag as O.Some<unknown>).value : flag] as const)
      }
      return fromEnv(option).pipe(
        Effect.flatMap((env): Effect.Effect<unknown, ConfigFileError | MissingOption> => {
          if (O.isSome(env)) return Effect.succeed(env.value)
          const entry = file?.entries.get(option.name)
          if (entry !== undefined && file !== undefined) return fromEntry(option, entry, file)
          return option.required ? Effect.fail(new MissingOption({ name: option.name })) : Effect.succeed(option.fallback)
        }),
        Effect.map((value) => [key, value] as const)
      )
    }),
    (pairs) => Object.fromEntries(pairs) as Option.All<Os>
  )

/**
 * The keys a file may hold for these commands' options.
 *
 * @category resolving
 * @since 0.8.0
 */
export const keysOf = (...records: ReadonlyArray<Readonly<Record<string, Option.Option<unknown>>>>): ReadonlySet<string> =>
  new Set(records.flatMap((r) => Object.values(r).map((o) => o.name)))
