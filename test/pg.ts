/**
 * A throwaway PostgreSQL for the cluster tests and the cluster benchmark:
 * `initdb` into a fresh folder, `pg_ctl start` on a free loopback port,
 * `pg_ctl stop -m immediate` and the folder removed afterwards. With
 * `AGENT_TRIALS_PG_URL` set, that server is used instead and nothing is
 * started.
 *
 * `initdb` refuses to run as root: as root, every PostgreSQL binary runs as
 * the `postgres` user (`runuser -u postgres`), which owns the folder.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

export interface Postgres {
  /** `postgres://...` of a database the caller may create tables in. */
  readonly url: string
  /** Stops the server and removes its folder (nothing for an external URL). */
  readonly stop: () => void
}

/** The folder of the newest installed PostgreSQL's binaries, if any. */
export const binDir = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  let versions: Array<string>
  try {
    versions = fs.readdirSync(root)
  } catch {
    return undefined
  }
  const found = versions
    .filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))
  return found.length === 0 ? undefined : path.join(root, found[0]!, "bin")
}

/** Why the cluster tests cannot run here, or undefined when they can. */
export const unavailable = (): string | undefined =>
  process.env["AGENT_TRIALS_PG_URL"] !== undefined || binDir() !== undefined
    ? undefined
    : "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin: install them (Debian/Ubuntu: " +
      "`apt-get install postgresql`) or set AGENT_TRIALS_PG_URL=postgres://user:pass@host:port/db to a database the " +
      "tests may use"

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo
      server.close(() => resolve(address.port))
    })
  })

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0

const runPg = (bin: string, file: string, args: ReadonlyArray<string>) => {
  const command = path.join(bin, file)
  execFileSync(isRoot() ? "runuser" : command, isRoot() ? ["-u", "postgres", "--", command, ...args] : [...args], {
    stdio: ["ignore", "pipe", "pipe"],
    // runuser keeps the caller's cwd, which the postgres user may not be able to read.
    cwd: os.tmpdir()
  })
}

/**
 * The server the tests use: `AGENT_TRIALS_PG_URL`, or a fresh one started
 * from the machine's binaries. Settings favour speed over durability (fsync
 * off): the data is thrown away. With `password`, a fresh server is always
 * started (AGENT_TRIALS_PG_URL's may trust every login), whose TCP logins
 * need that password (scram-sha-256) and whose URL carries it.
 */
export const start = async (options: { readonly password?: string } = {}): Promise<Postgres> => {
  const external = process.env["AGENT_TRIALS_PG_URL"]
  if (external !== undefined && options.password === undefined) return { url: external, stop: () => {} }
  const bin = binDir()
  if (bin === undefined) throw new Error(unavailable())
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-pg-"))
  if (isRoot()) execFileSync("chown", ["postgres:postgres", dir])
  const port = await freePort()
  let started = false
  // initdb wants an empty folder: the password file lives beside it, readable by the postgres user.
  const pwfile = `${dir}.pw`
  try {
    if (options.password === undefined) {
      runPg(bin, "initdb", ["-D", dir, "-A", "trust", "-U", "postgres", "--no-sync"])
    } else {
      fs.writeFileSync(pwfile, `${options.password}\n`, { mode: 0o644 })
      runPg(bin, "initdb", [
        "-D", dir, "--auth-local=trust", "--auth-host=scram-sha-256", `--pwfile=${pwfile}`, "-U", "postgres", "--no-sync"
      ])
    }
    runPg(bin, "pg_ctl", [
      "-D",
      dir,
      "-l",
      path.join(dir, "server.log"),
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off ` +
      `-c full_page_writes=off -c max_connections=200`,
      "-w",
      "start"
    ])
    started = true
  } catch (e) {
    const log = path.join(dir, "server.log")
    const detail = fs.existsSync(log) ? fs.readFileSync(log, "utf8").slice(-2000) : ""
    fs.rmSync(dir, { recursive: true, force: true })
    throw new Error(`cannot start PostgreSQL: ${(e as Error).message}\n${detail}`)
  } finally {
    fs.rmSync(pwfile, { force: true })
  }
  let stopped = false
  const user = options.password === undefined ? "postgres" : `postgres:${encodeURIComponent(options.password)}`
  return {
    url: `postgres://${user}@127.0.0.1:${port}/postgres`,
    stop: () => {
      if (stopped) return
      stopped = true
      try {
        if (started) runPg(bin, "pg_ctl", ["-D", dir, "-m", "immediate", "stop"])
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  }
}
