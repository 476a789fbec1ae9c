/**
 * What differs between two run definitions, as the flags that give each:
 * what `--resume` names when it refuses to continue another run.
 *
 * @internal
 */
import { Effect, FileSystem, type Path, Schema, Stream } from "effect"
import { createHash } from "node:crypto"
import * as Labels from "../../../summary/Labels.ts"
import * as SummaryText from "../../../summary/Text.ts"
import type * as AgentKinds from "../../../agents/AgentKinds.ts"
import * as UserConversation from "../../../agents/users/Conversation.ts"
import * as Users from "../../../agents/users/Users.ts"
import type * as ScorerKinds from "../../../scoring/ScorerKinds.ts"
import * as ScorerSpec from "../../../scoring/Spec.ts"
import { worldText } from "./world.ts"
import type { Fingerprint, Input, RunDefinition, Source } from "../Definition.ts"

/**
 * A file as a resume compares it: where it really is (symbolic links
 * followed) and its content's sha256; undefined when it cannot be read
 * (the run then stops on that file's own error).
 *
 * @internal
 */
export const fingerprint = (flag: string, file: string): Effect.Effect<Fingerprint | undefined, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const real = yield* fs.realPath(file)
    const bytes = yield* fs.readFile(real)
    return { flag, path: real, sha256: createHash("sha256").update(bytes).digest("hex") }
  }).pipe(Effect.orElseSucceed(() => undefined))

const short = (sha: string) => sha.slice(0, 12)
const pricingText = (p: Fingerprint | null) => p === null ? "no --pricing" : `--pricing ${p.path} (content sha256 ${short(p.sha256)})`
const modulesText = (ms: ReadonlyArray<Fingerprint>) =>
  ms.length === 0 ? "no module files" : ms.map((m) => `${m.flag} module ${m.path}`).join(", ")
const modulePaths = (ms: ReadonlyArray<Fingerprint>) => ms.map((m) => `${m.flag} ${m.path}`)

/**
 * The module files whose content changed since the run was started, the
 * same files otherwise: what a resume warns of (`another file` is a
 * difference, refused).
 *
 * @internal
 */
export const changedModules = (
  recorded: RunDefinition,
  now: RunDefinition
): ReadonlyArray<readonly [then: Fingerprint, now: Fingerprint]> =>
  recorded.modules === undefined || now.modules === undefined || !same(modulePaths(recorded.modules), modulePaths(now.modules))
    ? []
    : recorded.modules.flatMap((m, i) => m.sha256 === now.modules![i]!.sha256 ? [] : [[m, now.modules![i]!] as const])

/** @internal */
export const shortSha = short

/**
 * The fingerprints of the `module:` files of the agent (a --cluster run's
 * are the workers'), its tools and the scorers, in that order.
 *
 * @internal
 */
export const modulesOf = (input: Input, agentKind: AgentKinds.AgentKind, kinds: ReadonlyArray<ScorerKinds.ScorerKind>, path: Path.Path) => {
  const files: Array<readonly [string, string]> = []
  const agentFile = input.cluster === undefined ? agentKind.input?.(input.agent) : undefined
  if (agentFile !== undefined) files.push(["--agent", agentFile])
  for (const tool of input.tools ?? []) if (tool._tag === "ModuleTools") files.push(["--tools", String(tool["file"])])
  if (input.user?._tag === "Module") files.push(["--user", String(input.user["file"])])
  for (const spec of input.scorers) {
    const parsed = ScorerSpec.parse(spec, kinds)
    if (typeof parsed !== "string" && parsed._tag === "Module") files.push(["--score", String((parsed as { file?: unknown }).file)])
  }
  return Effect.map(
    Effect.forEach(files, ([flag, file]) => fingerprint(flag, path.resolve(input.cwd, file))),
    (found) => found.filter((f) => f !== undefined)
  )
}

/** @internal */
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** How a definition without `read` read its tasks file. @internal */
export const JSONL_AS_IS = { format: "jsonl", map: null, json_path: null } as const

const readText = (read: NonNullable<RunDefinition["read"]>) =>
  [
    `--format ${read.format}`,
    read.map === null ? "no --map" : `--map ${read.map}`,
    ...(read.json_path === null ? [] : [`--json-path ${read.json_path}`])
  ].join(" ")

const sourceText = (source: Source): string =>
  "synthetic" in source
    ? `--synthetic ${source.synthetic}`
    : "stdin" in source
    ? "--tasks -"
    : "hf" in source
    ? `--tasks ${source.hf}`
    : `--tasks ${source.tasks}`

const sameSource = (a: Source, b: Source): boolean =>
  "tasks" in a && "tasks" in b ? a.tasks === b.tasks : same(a, b)

const agentFlag = (agent: string) => agent.startsWith("cluster:") ? `--cluster ${agent.slice("cluster:".length)}` : `--agent ${agent}`
const optional = (flag: string, value: string | null) => value === null ? `no ${flag}` : `${flag} ${value}`
const scorersText = (scorers: ReadonlyArray<string>) =>
  scorers.length === 0 ? "no scorers" : scorers.map((s) => `--score ${s}`).join(" ")

const clusterFlag = (by: string | null) =>
  by === null ? "--stderr-cluster none" : by === "task" ? "standard errors clustered by task" : `--stderr-cluster ${by}`
const groupsText = (paths: ReadonlyArray<string>) =>
  paths.length === 0 ? "no --group-by" : paths.map((p) => `--group-by ${p}`).join(" ")

/**
 * What differs between the definition a results file was written with and
 * this run's, as flags: `[["--epochs 3", "--epochs 2"]]`. Empty when they
 * define the same run; a tasks file whose content changed is the same
 * source (see `check`).
 *
 * @category comparing
 * @since 0.1.0
 */
export const differences = (
  recorded: RunDefinition,
  now: RunDefinition
): ReadonlyArray<readonly [then: string, now: string]> => {
  const out: Array<readonly [string, string]> = []
  if (recorded.agent !== now.agent) out.push([agentFlag(recorded.agent), agentFlag(now.agent)])
  if (recorded.model !== now.model) out.push([optional("--model", recorded.model), optional("--model", now.model)])
  if (!same([...recorded.scorers].sort(), [...now.scorers].sort())) {
    out.push([scorersText(recorded.scorers), scorersText(now.scorers)])
  }
  if (recorded.pass !== now.pass) out.push([optional("--pass", recorded.pass), optional("--pass", now.pass)])
  if (recorded.judge_model !== now.judge_model) {
    out.push([optional("--judge-model", recorded.judge_model), optional("--judge-model", now.judge_model)])
  }
  if (recorded.epochs !== now.epochs) out.push([`--epochs ${recorded.epochs}`, `--epochs ${now.epochs}`])
  const clusterOf = (d: RunDefinition) => d.stderr_cluster === undefined ? Labels.clusterBy(undefined, d.epochs) : d.stderr_cluster
  const clusterThen = clusterOf(recorded)
  const clusterNow = clusterOf(now)
  // Each side at its epochs' default is the --epochs difference itself, not another one.
  const bothDefault = clusterThen === Labels.clusterBy(undefined, recorded.epochs) &&
    clusterNow === Labels.clusterBy(undefined, now.epochs)
  if (clusterThen !== clusterNow && !bothDefault) out.push([clusterFlag(clusterThen), clusterFlag(clusterNow)])
  if (!same(recorded.group_by ?? [], now.group_by ?? [])) {
    out.push([groupsText(recorded.group_by ?? []), groupsText(now.group_by ?? [])])
  }
  if (!sameSource(recorded.dataset, now.dataset)) out.push([sourceText(recorded.dataset), sourceText(now.dataset)])
  // Synthetic tasks have no `read`; a tasks file's definition without one read JSONL as it is.
  const readThen = recorded.read ?? ("synthetic" in recorded.dataset ? undefined : JSONL_AS_IS)
  const readNow = now.read ?? ("synthetic" in now.dataset ? undefined : JSONL_AS_IS)
  if (readThen !== undefined && readNow !== undefined && !same(readThen, readNow)) out.push([readText(readThen), readText(readNow)])
  if (!same(recorded.rows, now.rows)) {
    out.push([`rows ${SummaryText.rowsText(recorded.rows)}`, `rows ${SummaryText.rowsText(now.rows)}`])
  }
  // Prices make the costs and the budgets: another pricing file's content is another run.
  if (recorded.pricing !== undefined && now.pricing !== undefined && recorded.pricing?.sha256 !== now.pricing?.sha256) {
    out.push([pricingText(recorded.pricing), pricingText(now.pricing)])
  }
  // Another simulated user (or none where there was one) is another run.
  if (!same(recorded.user ?? null, now.user ?? null)) out.push([userText(recorded.user), userText(now.user)])
  // Another request (a temperature, a system prompt, a header) is another run.
  if (!same(recorded.request ?? [], now.request ?? [])) out.push([requestText(recorded.request, ""), requestText(now.request, "")])
  if (!same(recorded.judge_request ?? [], now.judge_request ?? [])) {
    out.push([requestText(recorded.judge_request, "judge-"), requestText(now.judge_request, "judge-")])
  }
  // A `module:` that resolves to another file is another agent, tool or scorer.
  if (recorded.modules !== undefined && now.modules !== undefined && !same(modulePaths(recorded.modules), modulePaths(now.modules))) {
    out.push([modulesText(recorded.modules), modulesText(now.modules)])
  }
  if (recorded.world !== undefined && now.world !== undefined && !same(recorded.world, now.world)) {
    out.push([worldText(recorded.world), worldText(now.world)])
  }
  return out
}

const requestText = (flags: ReadonlyArray<string> | undefined, prefix: string) =>
  flags === undefined || flags.length === 0 ? `no --${prefix}system, --${prefix}temperature, ... (the API's defaults)` : flags.join(" ")

/** A tasks file is told apart by its size and a hash of its first MiB: cheap on any size. */
const HASHED_BYTES = 1 << 20

/**
 * Where a run's tasks come from; undefined when its tasks file cannot be
 * read (the run then stops on the dataset's own error).
 *
 * @internal
 */
export const sourceOf = (input: Input, path: Path.Path): Effect.Effect<Source | undefined, never, FileSystem.FileSystem> => {
  if (input.tasks === undefined) return Effect.succeed({ synthetic: input.synthetic })
  if (input.tasks === "-") return Effect.succeed({ stdin: true })
  if (input.tasks.startsWith("hf:")) return Effect.succeed({ hf: input.tasks })
  const tasks = path.resolve(input.cwd, input.tasks)
  return Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(tasks)
    const hash = createHash("sha256")
    yield* fs.stream(tasks, { bytesToRead: HASHED_BYTES }).pipe(Stream.runForEach((chunk) => Effect.sync(() => hash.update(chunk))))
    return { tasks, size: Number(info.size), sha256_first_mib: hash.digest("hex") } satisfies Source
  }).pipe(Effect.orElseSucceed(() => undefined))
}

/**
 * The user's spec (a `module:` path absolute, a URL redacted), its
 * `--user-model` (null for a kind that names none), `--user-instruction`
 * and `--max-user-turns`, defaults written out.
 *
 * @internal
 */
export const UserRecorded = Schema.Struct({
  spec: Schema.String,
  model: Schema.NullOr(Schema.String),
  instruction: Schema.String,
  max_user_turns: Schema.Number
})

/** The user of a run's flags, as its definition records it. @internal */
export const userOf = (input: Input, spec: Users.Spec, path: Path.Path): typeof UserRecorded.Type => {
  const kind = Users.kindOf(spec)
  return {
    spec: kind.recorded(spec, (file) => path.resolve(input.cwd, file)),
    model: kind.usesModel === true ? input.userModel ?? null : null,
    instruction: input.userInstruction ?? UserConversation.defaults.instruction,
    max_user_turns: input.maxUserTurns ?? UserConversation.defaults.maxUserTurns
  }
}

/** The user as flags, in what `--resume` says differs. @internal */
export const userText = (user: typeof UserRecorded.Type | undefined): string =>
  user === undefined
    ? "no --user"
    : `--user ${user.spec}${user.model === null ? "" : ` --user-model ${user.model}`} --user-instruction ${user.instruction} ` +
      `--max-user-turns ${user.max_user_turns}`
