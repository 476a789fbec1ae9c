/**
 * `agent-trials view [DIR]`'s server: Effect's HTTP server on Node, over the
 * runs under DIR (`Runs`), answering the addresses of `Routes`. It binds to
 * `host` (loopback by default) and `port` (a free one when 0), answers only
 * requests whose Host header names it, prints its URL and serves until
 * interrupted (Ctrl-C).
 *
 * @since 0.7.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Console, Effect, Schema } from "effect"
import { HttpServer } from "effect/http"
import * as http from "node:http"
import * as os from "node:os"
import * as fs from "node:fs/promises"
import { handle } from "./Routes.ts"
import { Runs } from "./Runs.ts"

/**
 * What `view` needs, after flags are read.
 *
 * @category models
 * @since 0.7.0
 */
export interface ViewConfig {
  /** The folder of results files (searched recursively). */
  readonly dir: string
  readonly host: string
  /** 0: a free port. */
  readonly port: number
}

/**
 * A folder that is not one, or a port or host the server cannot bind
 * (exit 2): the message names the argument or flag.
 *
 * @category errors
 * @since 0.7.0
 */
export class ViewInputError extends Schema.TaggedError<ViewInputError>()("ViewInputError", {
  message: Schema.String
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
}

// The operating system's reason a listen failed (the ServeError's own message is empty).
const reasonOf = (e: { readonly message: string; readonly cause?: unknown }): string =>
  e.cause instanceof Error ? e.cause.message : e.message !== "" ? e.message : String(e.cause)

const LOOPBACK = ["localhost", "127.0.0.1", "::1"]
const ANY = ["0.0.0.0", "::"]

/**
 * The Host headers that name a server bound to `host`:`port`: that address
 * (and, for loopback, `localhost`); bound to every address (`0.0.0.0`,
 * `::`), this machine's interface addresses, its host name and loopback.
 *
 * @category security
 * @since 0.7.0
 */
export const hostsOf = (host: string, port: number): ReadonlySet<string> => {
  const names = [host]
  if (LOOPBACK.includes(host) || ANY.includes(host)) names.push(...LOOPBACK)
  if (ANY.includes(host)) {
    names.push(os.hostname())
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) names.push(a.address)
  }
  return new Set(names.map((n) => `${n.includes(":") ? `[${n}]` : n}:${port}`.toLowerCase()))
}

/**
 * Serves the runs under `config.dir` until interrupted; `ready` is called
 * with the URL once the server listens.
 *
 * @category running
 * @since 0.7.0
 */
export const serve = Effect.fn("View.serve")(function*(config: ViewConfig) {
  const dir = config.dir
  const isDir = yield* Effect.promise(() => fs.stat(dir).then((s) => s.isDirectory(), () => false))
  if (!isDir) return yield* new ViewInputError({ message: `view: DIR ${dir} is not a folder` })
  if (!(Number.isSafeInteger(config.port) && config.port >= 0 && config.port <= 65535)) {
    return yield* new ViewInputError({ message: `--port must be an integer from 0 to 65535, got ${config.port}` })
  }
  const runs = new Runs(dir)
  const node = http.createServer()
  const server = NodeHttpServer.layer(() => node, { port: config.port, host: config.host })
  return yield* Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    const port = address._tag === "InetAddressV4" || address._tag === "InetAddressV6" ? address.port : config.port
    const hosts = hostsOf(config.host, port)
    yield* HttpServer.serveEffect(handle(runs, hosts))
    const shown = config.host.includes(":") ? `[${config.host}]` : config.host
    yield* Console.log(`view: http://${shown}:${port}/ (the runs under ${dir}; Ctrl-C to stop)`)
    return yield* Effect.never
  }).pipe(
    // Ctrl-C: a page's open event stream would hold the server's close (it waits for every connection) for ever.
    Effect.ensuring(Effect.sync(() => node.closeAllConnections())),
    Effect.provide(server),
    Effect.scoped,
    Effect.catchTag("ServeError", (e) =>
      Effect.fail(new ViewInputError({ message: `view: cannot listen on --host ${config.host} --port ${config.port}: ${reasonOf(e)}` })))
  )
})
