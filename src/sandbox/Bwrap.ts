/**
 * The `bwrap` sandbox: the command runs under bubblewrap with the root file
 * system read-only, its workspace read-write (and its working directory), a
 * private /tmp, fresh /dev and /proc, a pid namespace of its own, no network
 * but its own loopback unless `full`, and `--die-with-parent`: when the
 * process that started it dies, even by SIGKILL, the kernel kills bwrap's
 * init and with it every process of the namespace.
 *
 * @since 0.9.0
 */
import { Effect } from "effect"
import * as path from "node:path"
import { runSpawn } from "./Run.ts"
import { argv, type Implementation, limited, SandboxUnavailable } from "./Sandbox.ts"

/** The isolation every command gets, and the probe checks. */
const BASE = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--tmpfs",
  "/tmp",
  "--unshare-pid",
  "--die-with-parent"
] as const

/**
 * Of `paths`, those a private /tmp would hide: each under /tmp (not /tmp
 * itself), bound back read-only so a project, and the Node running it, that
 * live under /tmp stay readable to the command; nothing of them writable.
 *
 * @category internals
 * @since 0.9.0
 */
export const hiddenByTmp = (paths: ReadonlyArray<string>): ReadonlyArray<string> =>
  [...new Set(paths.map((p) => path.resolve(p)).filter((p) => p.startsWith("/tmp/")))]

/**
 * How to get bubblewrap, for the error a missing one gives.
 *
 * @category messages
 * @since 0.9.0
 */
export const INSTALL = "install it with `apt-get install -y bubblewrap` (Debian, Ubuntu; `dnf install bubblewrap` on Fedora)"

/** The probe's own bound: bwrap answers in milliseconds when it can work at all. */
const PROBE_TIMEOUT = "10 seconds"

/**
 * The `bwrap` sandbox.
 *
 * @category implementations
 * @since 0.9.0
 */
export const bwrap: Implementation = {
  kind: "bwrap",
  wrap: (command, options) => {
    // bwrap binds and changes into absolute paths only.
    const workspace = options.workspace === undefined ? undefined : path.resolve(options.workspace)
    const cwd = path.resolve(options.cwd ?? workspace ?? process.cwd())
    return {
      command: "bwrap",
      args: [
        ...BASE,
        ...(options.network === "full" ? [] : ["--unshare-net"]),
        // The working directory and the Node running us, read-only, when the private /tmp hides them.
        ...hiddenByTmp([process.cwd(), cwd, path.dirname(process.execPath)]).flatMap((p) => ["--ro-bind", p, p]),
        // After --tmpfs /tmp, so a workspace under /tmp is bound over the private /tmp.
        ...(workspace === undefined ? [] : ["--bind", workspace, workspace]),
        "--chdir",
        cwd,
        "--",
        ...limited(argv(command), options.memoryBytes)
      ],
      cwd,
      diesWithParent: true
    }
  },
  check: (env) =>
    runSpawn(
      { command: "bwrap", args: [...BASE, "--unshare-net", "--", "true"], cwd: "/", diesWithParent: true },
      "bwrap --ro-bind / / true",
      { timeout: PROBE_TIMEOUT, env, tailLines: 5 }
    ).pipe(
      Effect.catchTags({
        SandboxSpawnFailed: (error) =>
          Effect.fail(
            new SandboxUnavailable({
              sandbox: "bwrap",
              message: error.code === "ENOENT"
                ? `--sandbox bwrap needs bubblewrap, and bwrap is not on PATH: ${INSTALL}`
                : `--sandbox bwrap: ${error.message}`
            })
          ),
        SandboxTimeout: () =>
          Effect.fail(
            new SandboxUnavailable({
              sandbox: "bwrap",
              message: `--sandbox bwrap: bwrap did not answer within ${PROBE_TIMEOUT}`
            })
          )
      }),
      Effect.flatMap((outcome) =>
        outcome.exitCode === 0 ? Effect.void : Effect.fail(
          new SandboxUnavailable({
            sandbox: "bwrap",
            message: `--sandbox bwrap: bwrap cannot make a sandbox here (${
              outcome.exitCode === null ? `signal ${outcome.signal}` : `exit code ${outcome.exitCode}`
            }${outcome.stderr === "" ? "" : `: ${outcome.stderr.replaceAll("\n", " ")}`}); ` +
              "it needs user namespaces: turn them on with `sysctl -w kernel.unprivileged_userns_clone=1` " +
              "(Debian) or `sysctl -w user.max_user_namespaces=15000`, or run where they are allowed " +
              "(a container started with --privileged or a seccomp profile that allows unshare)"
          })
        )
      )
    )
}
