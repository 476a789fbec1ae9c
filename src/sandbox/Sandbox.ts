/**
 * The sandbox port: how a command a trial starts (an MCP stdio server,
 * `--setup`, a `check:` command, the `exec` tool) is turned into the process
 * that actually runs. An implementation only rewrites the command line
 * (`wrap`) and says whether it can work here (`check`); starting, bounding
 * and reading the process is `Run.run`'s, the same for every implementation.
 * The implementations are listed in `Sandboxes.ts`, one line each.
 *
 * @since 0.9.0
 */
import { Context, Result, Schema } from "effect"
import type * as Effect from "effect/Effect"
import { fromString, quote } from "../internal/options.ts"

/**
 * The implementations by name: `none` runs the command as it is, `bwrap`
 * under bubblewrap.
 *
 * @category models
 * @since 0.9.0
 */
export const Kind = Schema.Literals(["none", "bwrap"])

/**
 * The value of {@link Kind}.
 *
 * @category models
 * @since 0.9.0
 */
export type Kind = typeof Kind.Type

/**
 * What a sandboxed command may reach of the network: `none` and `loopback`
 * a network namespace of its own, whose only interface is its own loopback
 * (bubblewrap brings `lo` up), so the sandbox's processes reach each other
 * on 127.0.0.1 but neither the host's 127.0.0.1 nor anything beyond; `full`
 * the host's network. The two first are the same namespace under bubblewrap
 * 0.8 (it always brings `lo` up): `loopback` says that the command relies
 * on it.
 *
 * @category models
 * @since 0.9.0
 */
export const Network = Schema.Literals(["none", "loopback", "full"])

/**
 * The value of {@link Network}.
 *
 * @category models
 * @since 0.9.0
 */
export type Network = typeof Network.Type

const word = <A extends string>(values: ReadonlyArray<A>) => (text: string): Result.Result<A, string> => {
  const found = values.find((value) => value === text.trim().toLowerCase())
  if (found !== undefined) return Result.succeed(found)
  const expected = values.length === 2 ? values.join(" or ") : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`
  return Result.fail(`Expected ${expected}, got ${quote(text)}`)
}

/**
 * `--sandbox` (config `sandbox:`) from its text: `none` (the default) or
 * `bwrap`; anything else is refused as `Expected none or bwrap, got "x"`.
 *
 * @category schemas
 * @since 0.9.0
 */
export const KindOption = fromString(Kind, word(Kind.literals), String)

/**
 * `--sandbox-network` (config `sandbox-network:`) from its text: `none`
 * (the default), `loopback` or `full`.
 *
 * @category schemas
 * @since 0.9.0
 */
export const NetworkOption = fromString(Network, word(Network.literals), String)

/**
 * A command to run: an argument vector (`["node", "server.js"]`, no shell),
 * or the text of a shell command, run as `sh -c TEXT`.
 *
 * @category models
 * @since 0.9.0
 */
export type Command = string | readonly [string, ...Array<string>]

/**
 * Where and how a command runs: its workspace (the one folder it may
 * write, and its working directory unless `cwd` names another, which it
 * may only read: an MCP server's command line is read from the run's
 * folder; with no workspace, a server shared by the run's trials, it may
 * write nothing but its private /tmp under bubblewrap, and `cwd` is its
 * working directory), its network, and the cap on its address space in
 * bytes (none when absent).
 *
 * @category models
 * @since 0.9.0
 */
export interface Options {
  readonly workspace?: string | undefined
  readonly network: Network
  readonly memoryBytes?: number | undefined
  readonly cwd?: string | undefined
}

/**
 * The process to start: the program, its arguments and its working
 * directory, as `child_process.spawn` takes them, and whether it dies with
 * the process that started it by itself (bubblewrap's `--die-with-parent`);
 * one that does not has its process group held by the run's reaper.
 *
 * @category models
 * @since 0.9.0
 */
export interface Spawn {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly diesWithParent?: boolean | undefined
}

/**
 * The environment a check or a command sees (the process's own when absent).
 *
 * @category models
 * @since 0.9.0
 */
export type Env = Readonly<Record<string, string | undefined>>

/**
 * The sandbox cannot work here: its program is missing, or the system
 * refuses what it needs (user namespaces). Bad setup: the run exits 2
 * before any trial; `message` says how to fix it.
 *
 * @category errors
 * @since 0.9.0
 */
export class SandboxUnavailable extends Schema.TaggedError<SandboxUnavailable>()("SandboxUnavailable", {
  sandbox: Kind,
  message: Schema.String
}) {
  /** Bad setup: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
}

/**
 * One implementation: `wrap` turns a command and its options into the
 * process to start; `check` probes once whether it can work here.
 *
 * @category models
 * @since 0.9.0
 */
export interface Implementation {
  readonly kind: Kind
  readonly wrap: (command: Command, options: Options) => Spawn
  readonly check: (env?: Env) => Effect.Effect<void, SandboxUnavailable>
}

/**
 * The sandbox a run's processes start in, as a service: the run provides
 * one implementation (`Sandboxes.layer(kind)`).
 *
 * @category services
 * @since 0.9.0
 */
export class Sandbox extends Context.Service<Sandbox, Implementation>()("agent-trials/sandbox/Sandbox") {}

/**
 * The argument vector of a command: a shell command's text as `sh -c TEXT`.
 *
 * @category constructors
 * @since 0.9.0
 */
export const argv = (command: Command): readonly [string, ...Array<string>] =>
  typeof command === "string" ? ["sh", "-c", command] : command

/**
 * `argv` capped to `memoryBytes` of address space: the shell's `ulimit -v`
 * (in KiB, rounded down, at least 1), then `exec` of the command, so the
 * cap is the command's own and every process it starts inherits it.
 *
 * @category constructors
 * @since 0.9.0
 */
export const limited = (
  args: readonly [string, ...Array<string>],
  memoryBytes: number | undefined
): readonly [string, ...Array<string>] =>
  memoryBytes === undefined
    ? args
    : ["sh", "-c", `ulimit -v ${Math.max(1, Math.floor(memoryBytes / 1024))} && exec "$0" "$@"`, ...args]

/**
 * A command as a user would type it, for messages: each argument
 * shell-quoted when it needs to be (`sh -c 'sleep 30'`).
 *
 * @category formatting
 * @since 0.9.0
 */
export const display = (command: Command): string =>
  argv(command).map((arg) => /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`).join(" ")
