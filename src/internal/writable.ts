/**
 * What a record may hold: a value that JSON writes as it is and reads back
 * the same. `JSON.stringify` throws on a cycle, a BigInt and a `toJSON` that
 * throws, and silently drops a function or writes `NaN` as `null`: the first
 * would stop the writer with every trial of its batch, the others change the
 * record (a `null` where a number must be makes the line unreadable to
 * `--resume`). `writable` finds the first such value and names where it is;
 * the strings on the way go through a scrub (a record never keeps a secret).
 *
 * @internal
 */

/**
 * The value as it will be written (strings scrubbed, `toJSON` applied; the
 * same object when nothing changed), or where and why it cannot be.
 *
 * @internal
 */
export type Writable =
  | { readonly _tag: "Writable"; readonly value: unknown }
  | { readonly _tag: "Unwritable"; readonly at: string; readonly why: string }

/**
 * Checks `value` (found at `at`, a path such as `output`) for what JSON
 * cannot write, scrubbing each string with `scrub` on the way (none when undefined: no secret to remove).
 *
 * **Example** (A cycle named by its path)
 *
 * ```ts
 * import { writable } from "./writable.ts"
 *
 * const response: Record<string, unknown> = { a: 1 }
 * response["self"] = response
 * writable({ output_text: "x", response }, "output", (s) => s)
 * // { _tag: "Unwritable", at: "output.response.self", why: "refers back to output.response (a cycle)" }
 * ```
 *
 * @internal
 */
export const writable = (value: unknown, at: string, scrub: ((text: string) => string) | undefined): Writable => {
  // Most values are small and clean: checked first without a path or copies.
  // A getter or a Proxy may throw under either pass: the walk then names
  // where, and only that value's trial fails.
  try {
    // The keys scrubbed at once: a secret is a whole token, and a line
    // break between two keys is an edge as the end of a string is. Without
    // a scrub (no secret to remove) nothing is gathered.
    const keys: Array<string> | undefined = scrub === undefined ? undefined : []
    budget = CLEAN_BUDGET
    if (clean(value, scrub, 0, keys) && (keys === undefined || keys.length === 0 || scrubbedAlike(keys, scrub!))) {
      return { _tag: "Writable", value }
    }
  } catch {
    // Left to the walk.
  }
  const walk = new Walk(at, scrub ?? unchanged)
  try {
    const out = walk.value(value, "")
    return walk.problem ?? { _tag: "Writable", value: out }
  } catch (e) {
    // Deep enough to exhaust the stack: JSON.stringify would fail the same way.
    // Where it threw, unless that is too deep to spell.
    const where = walk.segments.length > 32 ? at : walk.path()
    return walk.problem ?? { _tag: "Unwritable", at: where, why: `cannot be walked (${walk.scrub(thrown(e))})` }
  }
}

// The values `clean` looks at before it leaves a value to the walk: a body
// of a few hundred fields (an API's answer, up to 64 levels deep) is
// checked in place, while a value that refers back to itself, or a shared
// one met along many paths, costs no more than this.
const CLEAN_BUDGET = 4096
const CLEAN_DEPTH = 64
let budget = 0

// Whether `value` is written as it is, strings unchanged by `scrub`; `false`
// when unsure (too deep or too many values for the budget, or a `toJSON`),
// which leaves it to the walk.
const clean = (
  value: unknown,
  scrub: ((text: string) => string) | undefined,
  depth: number,
  keys: Array<string> | undefined
): boolean => {
  switch (typeof value) {
    case "string":
      return scrub === undefined || scrub(value) === value
    case "number":
      return Number.isFinite(value)
    case "boolean":
    case "undefined":
      return true
    case "object": {
      if (value === null) return true
      if (depth >= CLEAN_DEPTH || --budget < 0) return false
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!clean(value[i], scrub, depth + 1, keys)) return false
        return true
      }
      const object = value as Record<string, unknown>
      if (typeof object["toJSON"] === "function") return false
      for (const key in object) {
        if (!Object.hasOwn(object, key)) continue
        if (!clean(object[key], scrub, depth + 1, keys)) return false
        keys?.push(key)
      }
      return true
    }
    default:
      return false
  }
}

const unchanged = (text: string): string => text

const scrubbedAlike = (keys: ReadonlyArray<string>, scrub: (text: string) => string): boolean => {
  const joined = keys.join("\n")
  return scrub(joined) === joined
}

const thrown = (e: unknown): string => {
  try {
    return e instanceof Error ? e.message : String(e)
  } catch {
    return "an error that cannot be shown"
  }
}

/**
 * The message of a failure `writable` found: `output.response.n is a BigInt (10n), which JSON cannot hold`.
 *
 * @internal
 */
export const describeUnwritable = (problem: { readonly at: string; readonly why: string }): string =>
  `${problem.at} ${problem.why}`

// The path is kept as segments and spelled only for a message: a record
// that is fine (nearly all) costs no string per field.
class Walk {
  problem: Writable | undefined = undefined
  // The objects above the current one, with the depth of each: a cycle is a
  // reference back to one of them (a value shared by two fields is not).
  readonly stack: Array<object> = []
  readonly depths: Array<number> = []
  readonly segments: Array<string | number>
  readonly scrub: (text: string) => string
  constructor(root: string, scrub: (text: string) => string) {
    this.segments = [root]
    this.scrub = scrub
  }

  path(depth = this.segments.length): string {
    let out = String(this.segments[0])
    for (let i = 1; i < depth; i++) {
      const found = this.segments[i]!
      const segment = typeof found === "number" ? found : this.scrub(found)
      out += typeof segment === "number"
        ? `[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(segment)
        ? `.${segment}`
        : `[${JSON.stringify(segment)}]`
    }
    return out
  }

  fail(why: string): undefined {
    this.problem ??= { _tag: "Unwritable", at: this.path(), why }
    return undefined
  }

  value(value: unknown, key: string): unknown {
    switch (typeof value) {
      case "string":
        return this.scrub(value)
      case "number":
        return Number.isFinite(value) ? value : this.fail(`is ${value}, which JSON cannot hold (it would be written as null)`)
      case "boolean":
      case "undefined":
        return value
      case "bigint":
        return this.fail(`is a BigInt (${value}n), which JSON cannot hold`)
      case "function":
        return this.fail("is a function, which JSON cannot hold")
      case "symbol":
        return this.fail("is a symbol, which JSON cannot hold")
    }
    if (value === null) return value
    const object = value as Record<string, unknown>
    const seen = this.stack.indexOf(object)
    if (seen !== -1) return this.fail(`refers back to ${this.path(this.depths[seen])} (a cycle)`)
    this.stack.push(object)
    this.depths.push(this.segments.length)
    let out: unknown
    if (typeof object["toJSON"] === "function") {
      let json: unknown
      let threw: string | undefined
      try {
        json = (object["toJSON"] as (key: string) => unknown)(key)
      } catch (e) {
        threw = e instanceof Error ? e.message : String(e)
      }
      out = threw === undefined ? this.value(json, key) : this.fail(`has a toJSON that threw (${this.scrub(threw)})`)
    } else {
      out = Array.isArray(value) ? this.array(value) : this.object(object)
    }
    this.stack.pop()
    this.depths.pop()
    return out
  }

  array(array: ReadonlyArray<unknown>): unknown {
    let copy: Array<unknown> | undefined
    const { segments } = this
    for (let i = 0; i < array.length; i++) {
      segments.push(i)
      const item = array[i]
      const out = this.value(item, String(i))
      segments.pop()
      if (this.problem !== undefined) return undefined
      if (out !== item) (copy ??= array.slice())[i] = out
    }
    return copy ?? array
  }

  object(object: Record<string, unknown>): unknown {
    const { segments } = this
    const keys = Object.keys(object)
    const values: Array<unknown> = []
    let changed = false
    for (const key of keys) {
      segments.push(key)
      const item = object[key]
      const out = this.value(item, key)
      segments.pop()
      if (this.problem !== undefined) return undefined
      values.push(out)
      changed ||= out !== item || this.scrub(key) !== key
    }
    if (!changed) return object
    // A key may hold a secret too (a tool result keyed by a token). Own
    // properties defined one by one: a `__proto__` key stays data.
    const copy: Record<string, unknown> = {}
    for (let i = 0; i < keys.length; i++) {
      Object.defineProperty(copy, this.scrub(keys[i]!), { value: values[i], enumerable: true, writable: true, configurable: true })
    }
    return copy
  }
}
