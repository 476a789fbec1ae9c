/**
 * One definition of a command's option, from which everything about it is
 * derived: the CLI flag and its help, the `AGENT_TRIALS_*` variable it falls
 * back to, the config file's key, and the type of its value in the
 * command's config. A command's options are one record of these
 * (`config/Run.ts`, `config/Score.ts`, ...); adding a flag is one entry.
 *
 * @since 0.8.0
 */
import { Schema } from "effect"

/**
 * How an option is given: `value` once with a value; `switch` alone (`true`
 * when given); `list` repeatable, each value decoded on its own.
 *
 * @category models
 * @since 0.8.0
 */
export type Kind = "value" | "switch" | "list"

/**
 * An option of a command. `V` is the type of its value in the command's
 * config once every source was read; `fallback` is that value when no source
 * gives one.
 *
 * @category models
 * @since 0.8.0
 */
export interface Option<out V> {
  readonly kind: Kind
  /** The long flag without its dashes, and the config file's key: `max-cost`. */
  readonly name: string
  /** The placeholder of the value in the help: `USD`; the flag's own when undefined. */
  readonly metavar: string | undefined
  readonly description: string
  /** The variable it falls back to (a `list` takes one value from it); none when undefined. */
  readonly env: string | undefined
  /** Decodes one value as the flag's text gives it. */
  readonly schema: Schema.Codec<unknown, string>
  readonly fallback: V
  /** Whether the help names the variable (`[env AGENT_TRIALS_X]`). */
  readonly helpNamesEnv: boolean
  /** Whether a value must be given (by some source): the command has none without it. */
  readonly required: boolean
  /**
   * What of its value is a path, which a config file's folder resolves:
   * the whole value (`file`), or the path of a `module:`, `effect-ai:` or
   * `json-schema:` spec (`spec`); nothing when undefined.
   */
  readonly path?: "file" | "spec" | undefined
  /** The value the flag takes when given bare (`--cache` is `--cache=true`); a value is then attached with `=`. */
  readonly bare?: string | undefined
}

/**
 * The value type of an option.
 *
 * @category models
 * @since 0.8.0
 */
export type ValueOf<O> = O extends Option<infer V> ? V : never

/**
 * The values of a record of options: a field for each, optional where the
 * option has no value unless given.
 *
 * @category models
 * @since 0.8.0
 */
export type Values<Os> =
  & { readonly [K in keyof Os as undefined extends ValueOf<Os[K]> ? never : K]: ValueOf<Os[K]> }
  & { readonly [K in keyof Os as undefined extends ValueOf<Os[K]> ? K : never]?: ValueOf<Os[K]> }

/**
 * The values of a record of options, each as its option's type says.
 *
 * @category models
 * @since 0.8.0
 */
export type All<Os> = { readonly [K in keyof Os]: ValueOf<Os[K]> }

/**
 * `AGENT_TRIALS_<NAME>`: the variable of the option `name`.
 *
 * @category constructors
 * @since 0.8.0
 */
export const envName = (name: string) => `AGENT_TRIALS_${name.toUpperCase().replaceAll("-", "_")}`

/**
 * An option given once with a value, decoded by `schema`; `fallback` when
 * neither the flag, its variable nor the file gives one.
 *
 * @category constructors
 * @since 0.8.0
 */
export const value = <A, const D>(
  name: string,
  metavar: string | undefined,
  schema: Schema.Codec<A, string>,
  fallback: D,
  description: string,
  options?: { readonly env?: boolean }
): Option<A | D> => ({
  kind: "value",
  name,
  metavar,
  description,
  env: options?.env === false ? undefined : envName(name),
  schema: schema as Schema.Codec<unknown, string>,
  fallback,
  helpNamesEnv: options?.env !== false,
  required: false
})

/**
 * An option without which the command cannot run (`score --out FILE`): it
 * has no fallback and no variable.
 *
 * @category constructors
 * @since 0.8.0
 */
export const required = <A>(
  name: string,
  metavar: string | undefined,
  schema: Schema.Codec<A, string>,
  description: string
): Option<A> => ({
  ...value(name, metavar, schema, undefined, description, { env: false }),
  fallback: undefined as unknown as A,
  required: true
})

/**
 * An optional text option (a path, a name, a URL): undefined unless given.
 *
 * @category constructors
 * @since 0.8.0
 */
export const text = (name: string, description: string, options?: { readonly env?: boolean }): Option<string | undefined> =>
  value(name, undefined, Schema.String, undefined, description, options)

/**
 * A switch: `true` when given, else `false`. It has no variable.
 *
 * @category constructors
 * @since 0.8.0
 */
export const toggle = (name: string, description: string): Option<boolean> => ({
  kind: "switch",
  name,
  metavar: undefined,
  description,
  env: undefined,
  schema: Schema.String as Schema.Codec<unknown, string>,
  fallback: false,
  helpNamesEnv: false,
  required: false
})

/**
 * A repeatable option, each value decoded by `schema`; none unless given.
 * With `env`, its variable gives one value when the flag is not given.
 *
 * @category constructors
 * @since 0.8.0
 */
export const list = <A>(
  name: string,
  metavar: string,
  schema: Schema.Codec<A, string>,
  description: string,
  options?: { readonly env?: boolean; readonly helpNamesEnv?: boolean }
): Option<ReadonlyArray<A>> => ({
  kind: "list",
  name,
  metavar,
  description,
  env: options?.env === true ? envName(name) : undefined,
  schema: schema as Schema.Codec<unknown, string>,
  fallback: [],
  helpNamesEnv: options?.helpNamesEnv === true,
  required: false
})

/**
 * The option, its value a path (`file`) or a spec that may name one
 * (`spec`): a config file's relative paths resolve against its folder.
 *
 * @category combinators
 * @since 0.8.0
 */
export const withPath = <V>(option: Option<V>, path: "file" | "spec"): Option<V> => ({ ...option, path })

/**
 * The option, given bare on the command line, takes `text` (`--cache` is
 * `--cache=true`); another value is attached with `=` (`--cache=7d`).
 *
 * @category combinators
 * @since 0.8.0
 */
export const withBare = <V>(option: Option<V>, text: string): Option<V> => ({ ...option, bare: text })

/**
 * The help text of an option: its description, then the variable it falls
 * back to.
 *
 * @category destructors
 * @since 0.8.0
 */
export const help = (option: Option<unknown>): string =>
  option.env !== undefined && option.helpNamesEnv ? `${option.description} [env ${option.env}]` : option.description
