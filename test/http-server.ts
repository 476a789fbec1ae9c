/**
 * A real node:http server for agent tests: 127.0.0.1, an ephemeral port,
 * closed (connections included) with the test's scope.
 */
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

export type Handler = (request: Received, res: http.ServerResponse, req: http.IncomingMessage) => void

/** A server on an ephemeral port for the test's scope; records every request. */
export const serve = (handler: Handler) =>
  Effect.gen(function*() {
    const received: Array<Received> = []
    const server = yield* Effect.acquireRelease(
      Effect.callback<http.Server>((resume) => {
        const server = http.createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => chunks.push(chunk))
          req.on("end", () => {
            const request = {
              method: req.method ?? "",
              path: req.url ?? "",
              headers: req.headers,
              body: Buffer.concat(chunks).toString("utf8")
            }
            received.push(request)
            handler(request, res, req)
          })
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    return { base: `http://127.0.0.1:${port}`, port, received } as const
  })

export const json = (res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(typeof body === "string" ? body : JSON.stringify(body))
}

/** A port that was just free: listen, note it, close. */
export const closedPort = Effect.callback<number>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})
