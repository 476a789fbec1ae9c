/**
 * The layout's rules (issue 22), over the real import graph of src/:
 *
 * 1. Imports point down: internal <- domain <- statistics <- workspace <- runner <- {cache, sandbox} <- {agents,
 *    datasets, scoring, results} <- summary <- {report, cluster} <- programs <- view <- cli. A folder
 *    imports its own files and the folders below it; folders on one level
 *    do not import each other. Type imports count: a type is a dependency.
 * 2. No import cycles between files, except a public module and its own
 *    `internal/` module when the internal one imports only types from it.
 * 3. No file over 400 lines.
 * 4. No folder holds more than 20 files directly (its sub-folders' files do
 *    not count).
 * 5. No three files of one folder share a capitalised prefix word
 *    (`SummaryTally`, `SummaryText`, `SummaryModel`): a family is a folder,
 *    and its files drop the prefix (`summary/Tally.ts`). Lower-case names
 *    (internal modules, scorer kinds named after their spec) are not counted.
 * 6. statistics/ is pure numbers: it imports only internal/ and `effect`.
 * 7. cache/ (the response cache) imports only internal/, domain/, `effect`
 *    and Node's built-ins (`node:sqlite`, no SQLite package).
 * 8. sandbox/ (the sandbox port and its implementations) imports only
 *    internal/, domain/, `effect` and Node's built-ins (`node:child_process`).
 * 9. Time, randomness and output through Effect's Clock, Random and Console:
 *    no `Date.now()`, `new Date()`, `Math.random()` or `process.stdout/stderr.write`
 *    in src/ but at the sites allowed below, each with its reason.
 *
 * The checks are a function of the graph, run once on src/ and once on a
 * planted graph with one violation of each rule, which each must report.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const root = path.resolve(import.meta.dirname, "..", "src")

/** Folders by level, lowest first; the files at src/ itself (index.ts) sit above all. */
const LEVELS: ReadonlyArray<ReadonlyArray<string>> = [
  ["internal"],
  ["domain"],
  ["statistics"],
  ["workspace"],
  ["runner"],
  ["cache", "sandbox"],
  ["agents", "datasets", "scoring", "results"],
  ["summary"],
  ["report", "cluster"],
  ["programs"],
  ["view"],
  ["cli"]
]
const levelOf = new Map(LEVELS.flatMap((folders, level) => folders.map((folder) => [folder, level] as const)))

interface FileNode {
  readonly lines: number
  /** Imported file -> whether every import of it is type-only. */
  readonly imports: ReadonlyMap<string, boolean>
  /** The packages it imports (`effect`, `effect/http`, `node:fs`). */
  readonly packages: ReadonlySet<string>
}

type Graph = ReadonlyMap<string, FileNode>

const listFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? listFiles(full) : entry.name.endsWith(".ts") ? [full] : []
  })

const readGraph = (): Graph => {
  const graph = new Map<string, FileNode>()
  for (const file of listFiles(root)) {
    const text = fs.readFileSync(file, "utf8")
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const imports = new Map<string, boolean>()
    const packages = new Set<string>()
    const add = (specifier: string, typeOnly: boolean) => {
      if (!specifier.startsWith(".")) {
        packages.add(specifier)
        return
      }
      const target = path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep).join("/")
      imports.set(target, (imports.get(target) ?? true) && typeOnly)
    }
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause
        const allTypes = clause !== undefined && (clause.isTypeOnly || (
          clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)
        ))
        add(node.moduleSpecifier.text, allTypes)
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
        const allTypes = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly))
        add(node.moduleSpecifier.text, allTypes)
      } else if (
        ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0].text, false)
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        add(node.argument.literal.text, true)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
    graph.set(path.relative(root, file).split(path.sep).join("/"), { lines: text.split("\n").length, imports, packages })
  }
  return graph
}

const folderOf = (file: string): string | undefined => (file.includes("/") ? file.slice(0, file.indexOf("/")) : undefined)

/** Rule 1: every import that points up or sideways, as `from -> to (why)`. */
const layerViolations = (graph: Graph): Array<string> => {
  const out: Array<string> = []
  for (const [file, node] of graph) {
    const from = folderOf(file)
    if (from === undefined) continue
    const level = levelOf.get(from)
    if (level === undefined) {
      out.push(`${file}: ${from}/ is not a folder of the layout`)
      continue
    }
    for (const target of node.imports.keys()) {
      const to = folderOf(target)
      if (to === from) continue
      const targetLevel = to === undefined ? Number.POSITIVE_INFINITY : levelOf.get(to)
      if (targetLevel === undefined || targetLevel > level) out.push(`${file} -> ${target} (upward)`)
      else if (targetLevel === level) out.push(`${file} -> ${target} (sideways: ${from}/ and ${to}/ are on one level)`)
    }
  }
  return out.sort()
}

// `a/B.ts` and `a/internal/b.ts`: a public module and its own internal one.
const isOwnInternal = (publicFile: string, internalFile: string): boolean =>
  path.posix.dirname(internalFile) === path.posix.join(path.posix.dirname(publicFile), "internal") &&
  path.posix.basename(internalFile).toLowerCase() === path.posix.basename(publicFile).toLowerCase()

/** Rule 2: the import cycles (strongly connected components of more than one file, or a file importing itself). */
const cycles = (graph: Graph): Array<string> => {
  // The allowed pair: the internal module's type-only edge back to its public module is left out.
  const edges = (file: string): Array<string> =>
    [...(graph.get(file)?.imports ?? new Map<string, boolean>())].flatMap(([target, typeOnly]) =>
      graph.has(target) && !(typeOnly && isOwnInternal(target, file)) ? [target] : []
    )
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const out: Array<string> = []
  const connect = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter)
    counter++
    stack.push(v)
    onStack.add(v)
    for (const w of edges(v)) {
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || edges(v).includes(v)) out.push(component.sort().join(" <-> "))
    }
  }
  for (const file of graph.keys()) if (!index.has(file)) connect(file)
  return out.sort()
}

/** Rule 3: files over 400 lines. */
const longFiles = (graph: Graph): Array<string> =>
  [...graph].flatMap(([file, node]) => (node.lines > 400 ? [`${file}: ${node.lines} lines`] : [])).sort()

/** Rule 4: folders with more than 20 files of their own, as `folder/: N files`. */
const crowdedFolders = (graph: Graph): Array<string> => {
  const counts = new Map<string, number>()
  for (const file of graph.keys()) {
    const folder = path.posix.dirname(file)
    counts.set(folder, (counts.get(folder) ?? 0) + 1)
  }
  return [...counts].flatMap(([folder, n]) => (n > 20 ? [`${folder}/: ${n} files`] : [])).sort()
}

/** Rule 5: three or more files of one folder whose names start with one capitalised word, as `folder/Word*: A, B, C`. */
const prefixFamilies = (graph: Graph): Array<string> => {
  const families = new Map<string, Array<string>>()
  for (const file of graph.keys()) {
    const word = /^[A-Z][a-z0-9]*/.exec(path.posix.basename(file))?.[0]
    if (word === undefined) continue
    const key = `${path.posix.dirname(file)}/${word}`
    families.set(key, [...(families.get(key) ?? []), path.posix.basename(file, ".ts")])
  }
  return [...families].flatMap(([key, names]) => (names.length >= 3 ? [`${key}*: ${names.sort().join(", ")}`] : [])).sort()
}

/** Rule 6: what statistics/ imports beyond internal/, itself and `effect`. */
const impureStatistics = (graph: Graph): Array<string> =>
  [...graph].flatMap(([file, node]) => {
    if (folderOf(file) !== "statistics") return []
    const files = [...node.imports.keys()].filter((target) => !["internal", "statistics"].includes(folderOf(target) ?? ""))
    const packages = [...node.packages].filter((name) => name !== "effect" && !name.startsWith("effect/"))
    return [...files, ...packages].map((target) => `${file} -> ${target}`)
  }).sort()

/** Rule 7: what cache/ imports beyond internal/, domain/, itself, `effect` and Node's built-ins. */
const cacheReach = (graph: Graph): Array<string> =>
  [...graph].flatMap(([file, node]) => {
    if (folderOf(file) !== "cache") return []
    const files = [...node.imports.keys()].filter((target) => !["internal", "domain", "cache"].includes(folderOf(target) ?? ""))
    const packages = [...node.packages].filter((name) => name !== "effect" && !name.startsWith("effect/") && !name.startsWith("node:"))
    return [...files, ...packages].map((target) => `${file} -> ${target}`)
  }).sort()

/** Rule 8: what sandbox/ imports beyond internal/, domain/, itself, `effect` and Node's built-ins. */
const sandboxReach = (graph: Graph): Array<string> =>
  [...graph].flatMap(([file, node]) => {
    if (folderOf(file) !== "sandbox") return []
    const files = [...node.imports.keys()].filter((target) => !["internal", "domain", "sandbox"].includes(folderOf(target) ?? ""))
    const packages = [...node.packages].filter((name) => name !== "effect" && !name.startsWith("effect/") && !name.startsWith("node:"))
    return [...files, ...packages].map((target) => `${file} -> ${target}`)
  }).sort()

/** Rule 9: the calls that bypass Clock, Random and Console, as `file: call`. */
const ambientCalls = (file: string, text: string): Array<string> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const out: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const callee = node.expression.getText(source)
      if (["Date.now", "Math.random", "process.stdout.write", "process.stderr.write"].includes(callee)) {
        out.push(`${file}: ${callee}()`)
      }
    } else if (ts.isNewExpression(node) && node.expression.getText(source) === "Date" && (node.arguments?.length ?? 0) === 0) {
      out.push(`${file}: new Date()`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

// Each allowed site, and why it cannot go through the Effect service.
const AMBIENT_ALLOWED: Record<string, string> = {
  // The runner's hot path measures itself: one clock read per trial where two would cost ~50 ns each.
  "runner/internal/clock.ts: Date.now()": "the live wall clock, checked against performance.now() at most once a second",
  // Before Effect is loaded: the Node version check.
  "cli/bin.ts: process.stderr.write()": "the Node version check runs before any import of the program",
  // After the runtime: the teardown waits for both streams to drain before exiting.
  "cli/node.ts: process.stdout.write()": "the teardown's flush, after the runtime has ended",
  "cli/node.ts: process.stderr.write()": "the teardown's flush, after the runtime has ended",
  // The results writer's sink for `--out -`: its write callback says how many bytes reached the stream.
  "results/Results.ts: process.stdout.write()": "the results writer counts lines by the stream's write callbacks",
  // The live progress line is redrawn in place: Console adds a newline.
  "programs/run/Run.ts: process.stderr.write()": "the progress line is written without a newline",
  "cli/matrix.ts: process.stderr.write()": "the matrix's progress line is written without a newline"
}

describe("the layout of src/", () => {
  const graph = readGraph()

  it("reads the real graph: every folder of the layout has files, and imports were found", () => {
    for (const folder of levelOf.keys()) {
      assert.isTrue([...graph.keys()].some((file) => file.startsWith(`${folder}/`)), `no file in src/${folder}/`)
    }
    assert.isAbove([...graph.values()].reduce((n, node) => n + node.imports.size, 0), 200)
  })

  it("rule 1: imports point down only, no folder imports one on its own level (so domain/ imports only internal/)", () => {
    assert.deepStrictEqual(layerViolations(graph), [])
  })

  it("rule 2: no import cycles between files (but a module's own internal/ module importing only its types)", () => {
    assert.deepStrictEqual(cycles(graph), [])
  })

  it("rule 3: no file over 400 lines", () => {
    assert.deepStrictEqual(longFiles(graph), [])
  })

  it("rule 4: no folder holds more than 20 files of its own", () => {
    assert.deepStrictEqual(crowdedFolders(graph), [])
  })

  it("rule 5: no three files of one folder share a capitalised prefix word", () => {
    assert.deepStrictEqual(prefixFamilies(graph), [])
  })

  it("rule 6: statistics/ imports only internal/ and effect", () => {
    assert.deepStrictEqual(impureStatistics(graph), [])
  })

  it("rule 7: cache/ imports only internal/, domain/, effect and Node's built-ins", () => {
    assert.deepStrictEqual(cacheReach(graph), [])
  })

  it("rule 8: sandbox/ imports only internal/, domain/, effect and Node's built-ins", () => {
    assert.deepStrictEqual(sandboxReach(graph), [])
  })

  it("rule 9: time, randomness and output go through Clock, Random and Console, but at the allowed sites", () => {
    const found = listFiles(root).flatMap((file) =>
      ambientCalls(path.relative(root, file).split(path.sep).join("/"), fs.readFileSync(file, "utf8"))
    )
    assert.deepStrictEqual(found.filter((site) => !Object.hasOwn(AMBIENT_ALLOWED, site)), [])
    // Every allowance is still used: none outlives its site.
    assert.deepStrictEqual(Object.keys(AMBIENT_ALLOWED).filter((site) => !found.includes(site)), [])
  })

  it("rule 9's check reports a planted call of each kind, and not one in a comment", () => {
    const planted = [
      "// Date.now() in a comment is no call",
      "export const a = Date.now()",
      "export const b = new Date()",
      "export const c = new Date(0)",
      "export const d = Math.random()",
      "process.stderr.write(\"x\")"
    ].join("\n")
    assert.deepStrictEqual(ambientCalls("programs/X.ts", planted), [
      "programs/X.ts: Date.now()",
      "programs/X.ts: new Date()",
      "programs/X.ts: Math.random()",
      "programs/X.ts: process.stderr.write()"
    ])
  })

  it("the checks report a planted violation of each rule", () => {
    const node = (lines: number, imports: Record<string, boolean> = {}, packages: Array<string> = []): FileNode => ({
      lines,
      imports: new Map(Object.entries(imports)),
      packages: new Set(packages)
    })
    const planted: Graph = new Map([
      ["index.ts", node(10, { "cli/Cli.ts": false })],
      ["cli/Cli.ts", node(10, { "programs/run/Run.ts": false })],
      ["programs/run/Run.ts", node(10, { "runner/Runner.ts": false })],
      // up: the runner reads a program
      ["runner/Runner.ts", node(10, { "programs/run/Run.ts": true, "runner/internal/runner.ts": false })],
      // the allowed pair: its internal module imports only types back
      ["runner/internal/runner.ts", node(10, { "runner/Runner.ts": true })],
      // sideways, and a cycle between two files of one folder
      ["scoring/Stage.ts", node(10, { "agents/Http.ts": false, "scoring/Judge.ts": false })],
      ["scoring/Judge.ts", node(10, { "scoring/Stage.ts": false })],
      ["agents/Http.ts", node(401)],
      // domain/ reading the runner
      ["domain/Trial.ts", node(10, { "runner/Runner.ts": true })],
      // statistics/ reading a record type, and a package that does I/O
      ["statistics/Mean.ts", node(10, { "domain/Trial.ts": true, "internal/figures.ts": false }, ["effect", "node:fs"])],
      // cache/ reading the runner (below it, so no layer rule says so), and a SQLite package
      ["cache/Store.ts", node(10, { "runner/Runner.ts": true, "domain/Trial.ts": true }, ["effect", "node:sqlite", "better-sqlite3"])],
      // sandbox/ reading the runner and a process package
      ["sandbox/Bwrap.ts", node(10, { "runner/Runner.ts": true, "internal/redact.ts": false }, ["effect", "node:child_process", "execa"])],
      // a family that should be a folder (two of a word are fine; lower-case names are not counted)
      ["summary/SummaryTally.ts", node(10)],
      ["summary/SummaryText.ts", node(10)],
      ["summary/SummaryModel.ts", node(10)],
      ["summary/UsageTally.ts", node(10)],
      ["summary/UsageText.ts", node(10)],
      ["summary/internal/tallyA.ts", node(10)],
      ["summary/internal/tallyB.ts", node(10)],
      ["summary/internal/tallyC.ts", node(10)],
      // 21 files in one folder (the sub-folder's do not count)
      ...Array.from({ length: 21 }, (_, i) => [`datasets/f${i}.ts`, node(10)] as const),
      ...Array.from({ length: 5 }, (_, i) => [`results/g${i}.ts`, node(10)] as const),
      ...Array.from({ length: 20 }, (_, i) => [`results/internal/h${i}.ts`, node(10)] as const)
    ])
    assert.deepStrictEqual(layerViolations(planted), [
      "domain/Trial.ts -> runner/Runner.ts (upward)",
      "runner/Runner.ts -> programs/run/Run.ts (upward)",
      "scoring/Stage.ts -> agents/Http.ts (sideways: scoring/ and agents/ are on one level)"
    ])
    assert.deepStrictEqual(cycles(planted), [
      "programs/run/Run.ts <-> runner/Runner.ts",
      "scoring/Judge.ts <-> scoring/Stage.ts"
    ])
    assert.deepStrictEqual(longFiles(planted), ["agents/Http.ts: 401 lines"])
    assert.deepStrictEqual(crowdedFolders(planted), ["datasets/: 21 files"])
    assert.deepStrictEqual(prefixFamilies(planted), ["summary/Summary*: SummaryModel, SummaryTally, SummaryText"])
    assert.deepStrictEqual(impureStatistics(planted), ["statistics/Mean.ts -> domain/Trial.ts", "statistics/Mean.ts -> node:fs"])
    assert.deepStrictEqual(cacheReach(planted), ["cache/Store.ts -> better-sqlite3", "cache/Store.ts -> runner/Runner.ts"])
    assert.deepStrictEqual(sandboxReach(planted), ["sandbox/Bwrap.ts -> execa", "sandbox/Bwrap.ts -> runner/Runner.ts"])
  })
})
