/**
 * `module:PATH[#export]`: a user's function `(task, trial) => Score | number
 * | boolean`, or a Promise or Effect of one.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { ScorerSpecError, type ScorerKind, type SpecBase } from "../Kind.ts"
import * as ModuleScorer from "../ModuleScorer.ts"

/**
 * A parsed `module` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface ModuleSpec extends SpecBase {
  readonly _tag: "Module"
  readonly file: string
  readonly exportName: string | undefined
}

/**
 * The `module` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<ModuleSpec> = {
  kind: "module",
  tag: "Module",
  usage: "module:PATH[#export]",
  help: "module:PATH[#export]",
  doc: "your function `(task, trial) => Score | number | boolean`, or a Promise or Effect of one",
  parse: (rest, { bad, base }) => {
    const target = rest ?? ""
    const hash = target.lastIndexOf("#")
    const file = hash === -1 ? target : target.slice(0, hash)
    const exportName = hash === -1 ? undefined : target.slice(hash + 1)
    if (file === "") return bad("expected module:PATH[#export]")
    if (exportName === "") return bad("the export name after # is empty")
    const stem = file.replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "")
    return { _tag: "Module", ...base(exportName ?? (stem === "" ? "module" : stem)), file, exportName }
  },
  build: (spec, { options }) =>
    ModuleScorer.load(spec.file, spec.exportName, { name: spec.name, cwd: options.cwd, timeout: options.timeout }).pipe(
      Effect.mapError((e) => new ScorerSpecError({ where: `--score ${spec.shown}`, problem: e.message }))
    ),
  // Resolved, so a `--resume` from another directory names the same file.
  recorded: (spec, resolve) =>
    `${spec.name}=module:${resolve(spec.file)}${spec.exportName === undefined ? "" : `#${spec.exportName}`}`
}
