/**
 * The command as one esbuild bundle, for a fast start: Node then reads a few
 * large files instead of resolving, reading and compiling some 850 modules
 * (ours, effect's, @effect/platform-node's, undici's). `npm run build` writes
 * it as the bin (dist/cli/bin.js and dist/cli/chunks/); `npm start` and
 * `npm run trials` run a bundle of the current src/ kept in the OS temp
 * folder (`sourceBundle`), made again whenever a file of src/ (or the
 * installed packages) changes.
 *
 * `effect` is bundled: a user's module (`module:`, `effect-ai:`) gets its
 * own copy from its project, and Effect's values meet across copies by
 * string keys (test/package.test.ts runs both through the installed bin).
 * Left to Node to resolve at run time: the peers a user's project brings
 * (`ai`, `@openai/agents`), what is optional or loaded only by name
 * (`playwright-core`, `tsx`), the Postgres client `pg` with its native option
 * (`@effect/sql-pg` over it is bundled: a package on effect must share the
 * bundle's copy, whose `Redacted` values no other copy can read), and two
 * CommonJS packages src/ loads with `import()` (`ajv`, `yaml`).
 * Code that only some runs need is split into chunks that load when used
 * (every dynamic `import()` of src/).
 */
import { createHash } from "node:crypto"
import { createRequire } from "node:module"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { BuildOptions, Plugin } from "esbuild"

/**
 * The packages left out of the bundle. `ajv` and `yaml` are CommonJS that
 * src/ imports with `import()`: a split chunk of CommonJS gives `import()`
 * only its default export, where Node gives the named ones too.
 */
export const external: ReadonlyArray<string> = ["ai", "@openai/agents", "playwright-core", "tsx", "pg", "ajv", "yaml"]

// undici is CommonJS, re-exported by @effect/platform-node's Undici.js with
// `export *`, whose names esbuild cannot see inside a split chunk: that module
// is replaced by one naming each of undici's exports, read from undici itself.
const undiciNamed: Plugin = {
  name: "undici-named",
  setup: (build) => {
    build.onResolve({ filter: /^\.\/Undici\.js$/ }, (args) =>
      /[\\/]@effect[\\/]platform-node[\\/]dist$/.test(args.resolveDir)
        ? { path: "undici-named", namespace: "undici-named", pluginData: args.resolveDir }
        : undefined)
    build.onLoad({ filter: /.*/, namespace: "undici-named" }, (args) => {
      const from = createRequire(path.join(args.pluginData as string, "Undici.js"))
      const names = Object.keys(from("undici") as object).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name))
      return {
        contents: `import undici from "undici"\n${names.map((name) => `export const ${name} = undici.${name}`).join("\n")}\n`,
        resolveDir: args.pluginData as string,
        loader: "js"
      }
    })
  }
}

const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const digit = new Map([...base64].map((c, i) => [c, i]))

const decodeVlq = (text: string): Array<number> => {
  const out: Array<number> = []
  let value = 0
  let shift = 0
  for (const c of text) {
    const d = digit.get(c)!
    value += (d & 31) << shift
    if ((d & 32) !== 0) {
      shift += 5
      continue
    }
    out.push((value & 1) === 1 ? -(value >>> 1) : value >>> 1)
    value = 0
    shift = 0
  }
  return out
}

const encodeVlq = (values: ReadonlyArray<number>): string => {
  let out = ""
  for (const v of values) {
    let rest = v < 0 ? (-v << 1) | 1 : v << 1
    do {
      let d = rest & 31
      rest >>>= 5
      if (rest > 0) d |= 32
      out += base64[d]
    } while (rest > 0)
  }
  return out
}

interface SourceMap {
  version: number
  sources: Array<string>
  names: Array<string>
  mappings: string
  sourcesContent?: Array<string | null>
}

/**
 * `map` with only the mappings into sources `keep` takes: Node parses a
 * bundle's whole map when the bundle loads with source maps on, and the
 * packages' part (effect's, undici's) is most of it and names no line of
 * ours. Frames in their code then show the bundle's lines.
 */
export const keepSources = (map: SourceMap, keep: (source: string) => boolean): SourceMap => {
  const renumbered = new Map<number, number>()
  const sources: Array<string> = []
  map.sources.forEach((source, i) => {
    if (keep(source)) {
      renumbered.set(i, sources.length)
      sources.push(source)
    }
  })
  // Absolute values, carried across lines as the format does (except the column).
  let src = 0
  let line = 0
  let col = 0
  let name = 0
  let outSrc = 0
  let outLine = 0
  let outCol = 0
  let outName = 0
  const names: Array<string> = []
  const nameIndex = new Map<number, number>()
  const lines = map.mappings.split(";").map((segments) => {
    let genCol = 0
    let outGenCol = 0
    const kept: Array<string> = []
    for (const segment of segments === "" ? [] : segments.split(",")) {
      const v = decodeVlq(segment)
      genCol += v[0]!
      if (v.length < 4) continue
      src += v[1]!
      line += v[2]!
      col += v[3]!
      if (v.length >= 5) name += v[4]!
      const to = renumbered.get(src)
      if (to === undefined) continue
      const fields = [genCol - outGenCol, to - outSrc, line - outLine, col - outCol]
      outGenCol = genCol
      outSrc = to
      outLine = line
      outCol = col
      if (v.length >= 5) {
        let n = nameIndex.get(name)
        if (n === undefined) {
          n = names.length
          nameIndex.set(name, n)
          names.push(map.names[name]!)
        }
        fields.push(n - outName)
        outName = n
      }
      kept.push(encodeVlq(fields))
    }
    return kept.join(",")
  })
  const { sourcesContent: _, ...rest } = map
  return { ...rest, sources, names, mappings: lines.join(";") }
}

/**
 * esbuild's options for the bundle of `root`'s src/cli/bin.ts into `outdir`
 * (`bin.js`, its chunks in `chunks/`, linked source maps naming src/).
 * Bundled CommonJS (undici, yaml...) calls `require`: the banner gives the
 * ES modules one.
 */
export const binOptions = (root: string, outdir: string): BuildOptions => ({
  absWorkingDir: root,
  entryPoints: { bin: path.join(root, "src", "cli", "bin.ts") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node24",
  external: [...external],
  plugins: [undiciNamed],
  chunkNames: "chunks/[name]-[hash]",
  banner: { js: "import { createRequire as __agentTrialsRequire } from \"node:module\"; const require = __agentTrialsRequire(import.meta.url);" },
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "none",
  logLevel: "error"
})

/**
 * Bundles `root`'s command into `outdir` (`binOptions`), its source maps
 * keeping only the mappings into `root`'s src/.
 */
export const writeBundle = async (root: string, outdir: string): Promise<void> => {
  const { build } = await import("esbuild")
  const result = await build({ ...binOptions(root, outdir), write: false })
  const ours = path.join(root, "src") + path.sep
  for (const file of result.outputFiles) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true })
    if (!file.path.endsWith(".map")) {
      fs.writeFileSync(file.path, file.contents, { mode: file.path === path.join(outdir, "bin.js") ? 0o755 : 0o644 })
      continue
    }
    const map = keepSources(JSON.parse(file.text) as SourceMap, (source) => path.resolve(path.dirname(file.path), source).startsWith(ours))
    fs.writeFileSync(file.path, JSON.stringify(map))
  }
}

const walk = (dir: string, into: Array<string>): Array<string> => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) walk(file, into)
    else into.push(file)
  }
  return into
}

/**
 * What a source bundle of `root` is made of, as a key: every file of src/,
 * the package manifests and the installed packages' lock (npm rewrites it on
 * each install), and this file, each by path, size and modification time.
 * An edit of any of them gives another key.
 */
export const sourceKey = (root: string): string => {
  const hash = createHash("sha256").update(`${root}\0${process.version}\0`)
  const files = [
    ...walk(path.join(root, "src"), []),
    path.join(root, "package.json"),
    path.join(root, "package-lock.json"),
    path.join(root, "node_modules", ".package-lock.json"),
    path.join(import.meta.dirname, "bundle.ts")
  ]
  for (const file of files) {
    const stat = fs.statSync(file, { throwIfNoEntry: false })
    hash.update(`${file}\0${stat?.size ?? -1}\0${stat?.mtimeMs ?? -1}\n`)
  }
  return hash.digest("hex").slice(0, 16)
}

/**
 * The folder of `root`'s bundles and compile cache: in the OS temp folder,
 * one per user and checkout, never in the repository.
 */
export const cacheDir = (root: string): string =>
  path.join(
    os.tmpdir(),
    `agent-trials-${typeof process.getuid === "function" ? process.getuid() : os.userInfo().username}`,
    createHash("sha256").update(root).digest("hex").slice(0, 12)
  )

// A bundle is removed by the next start of another one when no process runs it: each
// process that runs one leaves its pid in the bundle's users/ folder (removed
// at its exit; a pid no longer alive, after a kill -9, does not count), since
// a run loads chunks as it goes, its outputs' at its end. A build left half
// done (its process killed) is removed after an hour.
const buildKeepMs = 60 * 60 * 1000

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

// Every bundle has its users/ from the start (made before it is moved into place).
const inUse = (dir: string): boolean => {
  const users = path.join(dir, "users")
  return fs.existsSync(users) && fs.readdirSync(users).some((pid) => alive(Number(pid)))
}

// `dir`'s users/ names this process, until it exits; `at` is where `dir` will be.
const use = (dir: string, at: string = dir): void => {
  const users = path.join(dir, "users")
  fs.mkdirSync(users, { recursive: true })
  fs.writeFileSync(path.join(users, String(process.pid)), "")
  const mine = path.join(at, "users", String(process.pid))
  process.on("exit", () => fs.rmSync(mine, { force: true }))
}

const prune = (base: string, current: string): void => {
  for (const name of fs.readdirSync(base)) {
    const dir = path.join(base, name)
    try {
      if (name.startsWith("src-") && dir !== current && !inUse(dir)) fs.rmSync(dir, { recursive: true, force: true })
      if (name.startsWith("building-") && Date.now() - fs.statSync(dir).mtimeMs > buildKeepMs) fs.rmSync(dir, { recursive: true, force: true })
    } catch {
      // Removed meanwhile by another process: nothing left to do.
    }
  }
}

/**
 * The entry (bin.js) of the bundle of `root`'s current source, made now if
 * src/ changed since the last one. Two processes making the same bundle at
 * once both succeed: each builds in a folder of its own and moves it into
 * place; the second finds the place taken and uses the first's.
 * A package.json beside the chunks names the package and its version, as
 * the repository's does (the command's `--version` finds it from its module),
 * and a node_modules link to the repository's resolves the packages left out.
 */
export const sourceBundle = async (root: string): Promise<string> => {
  const base = cacheDir(root)
  const dir = path.join(base, `src-${sourceKey(root)}`)
  const entry = path.join(dir, "bin.js")
  if (fs.existsSync(entry)) {
    use(dir)
    prune(base, dir)
    return entry
  }
  fs.mkdirSync(base, { recursive: true, mode: 0o700 })
  const building = fs.mkdtempSync(path.join(base, "building-"))
  try {
    await writeBundle(root, building)
    const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { readonly version: string }
    fs.writeFileSync(path.join(building, "package.json"), JSON.stringify({ name: "agent-trials", version, private: true, type: "module" }))
    // The packages left out are found from the bundle as from src/.
    fs.symlinkSync(path.join(root, "node_modules"), path.join(building, "node_modules"), "junction")
    // In use from the moment it is in place: another process's pruning keeps it.
    use(building, dir)
    fs.renameSync(building, dir)
  } catch (error) {
    fs.rmSync(building, { recursive: true, force: true })
    if (!fs.existsSync(entry)) throw error
    use(dir)
  }
  prune(base, dir)
  return entry
}
