/**
 * Loads a function exported by a user's module (an agent, a scorer): the
 * named export, or the default one, also under a CommonJS module's
 * `default`. A string failure is the problem, worded with `kind` ("agent
 * module", "scorer module") for the caller's own error.
 *
 * @internal
 */
import { Effect } from "effect"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe as describeCause } from "./describe.ts"

/** @internal */
export const loadExport = (
  file: string,
  exportName: string | undefined,
  cwd: string,
  kind: string
): Effect.Effect<(...args: ReadonlyArray<never>) => unknown, string> =>
  Effect.gen(function*() {
    const wanted = exportName ?? "default"
    const mod = yield* Effect.tryPromise({
      try: () => import(pathToFileURL(path.resolve(cwd, file)).href) as Promise<Record<string, unknown>>,
      catch: (e) => `cannot load ${kind} ${file}: ${describeCause(e, { max: 200, clip: "preview" })}`
    })
    let fn = mod[wanted]
    // A CommonJS module imported from ESM puts its exports under `default`.
    if (fn === undefined && exportName !== undefined) {
      const cjs = mod["default"] as Record<string, unknown> | undefined
      fn = typeof cjs === "object" && cjs !== null ? cjs[exportName] : undefined
    }
    if (typeof fn !== "function") {
      const exports = Object.keys(mod).filter((k) => k !== "__esModule")
      return yield* Effect.fail(
        fn === undefined
          ? `${kind} ${file} has no export "${wanted}" (it exports: ${exports.length > 0 ? exports.join(", ") : "nothing"})`
          : `export "${wanted}" of ${kind} ${file} is a ${typeof fn}, not a function`
      )
    }
    return fn as (...args: ReadonlyArray<never>) => unknown
  })

/**
 * Loads any value a user's module exports (a toolkit, a layer, an object of
 * tools): the named export, or the default one, also under a CommonJS
 * module's `default`. A string failure is the problem, worded with `kind`.
 *
 * @internal
 */
export const loadValue = (
  file: string,
  exportName: string | undefined,
  cwd: string,
  kind: string
): Effect.Effect<unknown, string> =>
  Effect.gen(function*() {
    const wanted = exportName ?? "default"
    const mod = yield* Effect.tryPromise({
      try: () => import(pathToFileURL(path.resolve(cwd, file)).href) as Promise<Record<string, unknown>>,
      catch: (e) => `cannot load ${kind} ${file}: ${describeCause(e, { max: 200, clip: "preview" })}`
    })
    let value = mod[wanted]
    if (value === undefined && exportName !== undefined) {
      const cjs = mod["default"] as Record<string, unknown> | undefined
      value = typeof cjs === "object" && cjs !== null ? cjs[exportName] : undefined
    }
    if (value === undefined) {
      const exports = Object.keys(mod).filter((k) => k !== "__esModule")
      return yield* Effect.fail(
        `${kind} ${file} has no export "${wanted}" (it exports: ${exports.length > 0 ? exports.join(", ") : "nothing"})`
      )
    }
    return value
  })
