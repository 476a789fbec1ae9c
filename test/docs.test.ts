/**
 * The public surface, checked through the TypeScript compiler the way
 * `effect`'s docgen checks its own: the package's entries (read from
 * package.json `exports`) export namespaces, one per module, each with a
 * module doc; every symbol has one way in; every public export has a summary,
 * `@since` and `@category`; and every ```ts example in a doc comment under
 * src/ and in README.md type-checks against the source.
 *
 * The examples' convention: each is a complete module that imports what it
 * uses, from "agent-trials" (mapped to src/index.ts here, as the published
 * package maps it to dist/) and "effect", as a user would write it. Only an
 * internal module's example may import by a relative path, from beside its
 * module. Examples are type-checked, not run; unused names are allowed.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const root = path.resolve(import.meta.dirname, "..")
const relative = (file: string) => path.relative(root, file).split(path.sep).join("/")

interface Entry {
  /** What a user imports: `agent-trials`, `agent-trials/eager`. */
  readonly specifier: string
  /** The source module the published entry is built from. */
  readonly source: string
}

// `"./eager": { "default": "./dist/runner/Eager.js" }` is built from src/runner/Eager.ts.
const entries: ReadonlyArray<Entry> = (() => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    readonly name: string
    readonly exports: Record<string, string | { readonly default?: string }>
  }
  return Object.entries(pkg.exports).flatMap(([key, target]) => {
    const built = typeof target === "string" ? undefined : target.default
    if (built === undefined || !built.startsWith("./dist/")) return []
    return [{
      specifier: key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`,
      source: path.join(root, "src", built.slice("./dist/".length).replace(/\.js$/, ".ts"))
    }]
  })
})()

// ---------------------------------------------------------------------------
// Examples

interface Example {
  /** Where it is written: `src/Runner.ts:87` (the line of its opening fence). */
  readonly where: string
  /** The file it is compiled as (in memory only). */
  readonly file: string
  /** Line of the document where the code's first line is (1-based). */
  readonly firstLine: number
  readonly origin: string
  readonly code: string
  /** Whether it may import by a relative path (an internal module's example). */
  readonly relativeImports: boolean
}

const isInternal = (file: string) => /(^|\/)internal\//.test(relative(file))

// The ```ts blocks of `lines`, which start at line `offset + 1` of `origin`.
const fencedBlocks = (lines: ReadonlyArray<string>, offset: number) => {
  const blocks: Array<{ readonly fence: number; readonly code: string }> = []
  let open: number | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim()
    if (open === undefined) {
      if (/^```(ts|typescript)\b/.test(line)) open = i
    } else if (line === "```") {
      blocks.push({ fence: offset + open + 1, code: lines.slice(open + 1, i).join("\n") })
      open = undefined
    }
  }
  return blocks
}

const exampleAt = (origin: string, dir: string, fence: number, code: string, relativeImports: boolean): Example => ({
  where: `${relative(origin)}:${fence}`,
  // Beside its source, so an internal module's example can import it by path.
  file: path.join(dir, `__docs_example_${path.basename(origin).replace(/\W/g, "_")}_${fence}.ts`),
  firstLine: fence + 1,
  origin,
  code,
  relativeImports
})

// Every ```ts block inside a /** */ comment of a source file.
const examplesInSource = (file: string, text: string): Array<Example> => {
  const out: Array<Example> = []
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const offset = text.slice(0, comment.index).split("\n").length - 1
    const lines = comment[0].split("\n").map((line) => line.replace(/^\s*(\/\*\*|\*\/|\*)( |$)/, ""))
    for (const block of fencedBlocks(lines, offset)) {
      out.push(exampleAt(file, path.dirname(file), block.fence, block.code, isInternal(file)))
    }
  }
  return out
}

const examplesInMarkdown = (file: string, text: string): Array<Example> =>
  fencedBlocks(text.split("\n"), 0).map((block) => exampleAt(file, root, block.fence, block.code, false))

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith(".ts") ? [full] : []
  })

const collectExamples = (): Array<Example> => [
  ...sourceFiles(path.join(root, "src")).flatMap((file) => examplesInSource(file, fs.readFileSync(file, "utf8"))),
  ...examplesInMarkdown(path.join(root, "README.md"), fs.readFileSync(path.join(root, "README.md"), "utf8"))
]

// The convention, checked before the compiler: a complete module, importing
// from the package (or, internal modules only, from beside the module).
const conventionProblems = (example: Example): Array<string> => {
  const problems: Array<string> = []
  if (!/^\s*import\s/m.test(example.code)) {
    problems.push(`${example.where}: not a complete program: import what it uses from "agent-trials" and "effect"`)
  }
  if (!example.relativeImports && /\bfrom\s+["']\.\.?\//.test(example.code)) {
    problems.push(`${example.where}: imports by a relative path: import from "agent-trials" as a user would`)
  }
  return problems
}

// ---------------------------------------------------------------------------
// One program: the entries and every example, against the repository's
// compiler options, with the package's own name mapped to its source.

const compilerOptions = (): ts.CompilerOptions => {
  const configFile = path.join(root, "tsconfig.json")
  const { config, error } = ts.readConfigFile(configFile, ts.sys.readFile)
  if (error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, "\n"))
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configFile)
  return {
    ...parsed.options,
    noEmit: true,
    // A snippet that declares a value to show it is fine.
    noUnusedLocals: false,
    noUnusedParameters: false,
    baseUrl: root,
    paths: Object.fromEntries(entries.map((entry) => [entry.specifier, [relative(entry.source)]]))
  }
}

const compile = (examples: ReadonlyArray<Example>) => {
  const options = compilerOptions()
  const inMemory = new Map(examples.map((example) => [example.file, example.code]))
  const host = ts.createCompilerHost(options, true)
  const { fileExists, getSourceFile, readFile } = host
  host.fileExists = (file) => inMemory.has(file) || fileExists.call(host, file)
  host.readFile = (file) => inMemory.get(file) ?? readFile.call(host, file)
  host.getSourceFile = (file, languageVersion, onError, shouldCreate) => {
    const text = inMemory.get(file)
    return text === undefined
      ? getSourceFile.call(host, file, languageVersion, onError, shouldCreate)
      : ts.createSourceFile(file, text, languageVersion, true)
  }
  const program = ts.createProgram({
    rootNames: [...entries.map((entry) => entry.source), ...examples.map((example) => example.file)],
    options,
    host
  })
  const diagnosticsOf = (example: Example): Array<string> => {
    const file = program.getSourceFile(example.file)
    if (file === undefined) return [`${example.where}: not compiled`]
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) => {
      const line = d.start === undefined ? 0 : file.getLineAndCharacterOfPosition(d.start).line
      return `${relative(example.origin)}:${example.firstLine + line}: TS${d.code} ${
        ts.flattenDiagnosticMessageText(d.messageText, "\n")
      }`
    })
  }
  return { program, diagnosticsOf }
}

const examples = collectExamples()

// Examples written to fail, compiled with the real ones: they show the check
// reports a type error or a broken convention, at the line where it is written.
const broken = {
  typeError: exampleAt(path.join(root, "broken.md"), root, 10, [
    `import { Stream } from "effect"`,
    `import { Runner } from "agent-trials"`,
    `export const trials = Runner.runTrials(Stream.empty, "not an agent", { parallelism: 8 })`
  ].join("\n"), false),
  relativeImport: exampleAt(path.join(root, "broken.md"), root, 20, `import { Runner } from "../src/index.ts"\nRunner.runTrials`, false),
  noImport: exampleAt(path.join(root, "broken.md"), root, 30, `const trials = Runner.runTrials`, false),
  // A user can neither move a probe's counts nor pass a look-alike to a run.
  probeMisuse: exampleAt(path.join(root, "broken.md"), root, 40, [
    `import { Effect } from "effect"`,
    `import { Probe } from "agent-trials"`,
    `export const program = Effect.gen(function*() {`,
    `  const probe = yield* Probe.make`,
    `  probe.active = 0`,
    `  const lookalike: Probe.Probe = { ...probe.snapshot(), snapshot: () => probe.snapshot() }`,
    `  return lookalike`,
    `})`
  ].join("\n"), false)
}

const { diagnosticsOf, program } = compile([...examples, ...Object.values(broken)])
const checker = program.getTypeChecker()

// ---------------------------------------------------------------------------
// The public surface, walked from the entries.

interface PublicExport {
  /** How a user reaches it: `agent-trials` Runner.runTrials, `agent-trials/eager` runTrialsEager. */
  readonly path: string
  readonly symbol: ts.Symbol
  readonly internal: boolean
  readonly tags: ReadonlyArray<string>
  readonly summary: string
}

const resolve = (symbol: ts.Symbol): ts.Symbol =>
  symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol

const moduleSymbolOf = (file: string): ts.Symbol => {
  const source = program.getSourceFile(file)
  assert.isDefined(source, `${relative(file)} is not in the program`)
  const symbol = checker.getSymbolAtLocation(source!)
  assert.isDefined(symbol, `${relative(file)} is not a module`)
  return symbol!
}

const describeExport = (reachedAs: string, exported: ts.Symbol): PublicExport => {
  const symbol = resolve(exported)
  const tags = symbol.getJsDocTags(checker).map((tag) => tag.name)
  return {
    path: reachedAs,
    symbol,
    internal: tags.includes("internal"),
    tags,
    summary: ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim()
  }
}

// A namespace export (`export * as Runner from "./Runner.ts"`): its module's exports.
const namespaceModule = (exported: ts.Symbol): ts.Symbol | undefined =>
  exported.declarations?.some(ts.isNamespaceExport) ? resolve(exported) : undefined

const walk = (): Array<PublicExport> =>
  entries.flatMap((entry) =>
    checker.getExportsOfModule(moduleSymbolOf(entry.source)).flatMap((exported) => {
      const module = namespaceModule(exported)
      if (module === undefined) return [describeExport(`${entry.specifier} ${exported.name}`, exported)]
      return checker.getExportsOfModule(module).map((member) =>
        describeExport(`${entry.specifier} ${exported.name}.${member.name}`, member)
      )
    })
  )

// The modules a user reaches: the entries' namespaces and the entries that are modules themselves.
const publicModules = (): Array<string> =>
  entries.flatMap((entry) => {
    const namespaces = checker.getExportsOfModule(moduleSymbolOf(entry.source)).flatMap((exported) => {
      const module = namespaceModule(exported)
      const file = module?.valueDeclaration?.getSourceFile().fileName
      return file === undefined ? [] : [file]
    })
    return namespaces.length > 0 ? namespaces : [entry.source]
  })

// Top-level names of the main entry kept as a contract (`@contract` on their export).
const contractNames = (): Array<string> => {
  const index = program.getSourceFile(entries[0].source)!
  return index.statements.flatMap((statement) => {
    if (!ts.isExportDeclaration(statement) || statement.exportClause === undefined) return []
    if (!ts.isNamedExports(statement.exportClause)) return []
    const tagged = ts.getJSDocCommentsAndTags(statement).filter(ts.isJSDoc)
      .some((doc) => (doc.tags ?? []).some((tag) => tag.tagName.text === "contract"))
    return tagged ? statement.exportClause.elements.map((e) => `${entries[0].specifier} ${e.name.text}`) : []
  })
}

const moduleDoc = (file: string): string | undefined => /^\s*(\/\*\*[\s\S]*?\*\/)/.exec(fs.readFileSync(file, "utf8"))?.[1]

describe("the public surface", () => {
  it("the entries come from package.json: agent-trials and agent-trials/eager, built from src/index.ts and src/runner/Eager.ts", () => {
    assert.deepStrictEqual(entries.map((entry) => [entry.specifier, relative(entry.source)]), [
      ["agent-trials", "src/index.ts"],
      ["agent-trials/eager", "src/runner/Eager.ts"]
    ])
  })

  it("agent-trials exports namespaces only, as effect's index does, each with a summary and @since", () => {
    const index = program.getSourceFile(entries[0].source)!
    const problems: Array<string> = []
    for (const statement of index.statements) {
      const line = index.getLineAndCharacterOfPosition(statement.getStart()).line + 1
      const where = `src/index.ts:${line}`
      if (!ts.isExportDeclaration(statement)) {
        problems.push(`${where}: not an export`)
        continue
      }
      const docs = ts.getJSDocCommentsAndTags(statement).filter(ts.isJSDoc)
      if (statement.exportClause === undefined || !ts.isNamespaceExport(statement.exportClause)) {
        // A name an earlier release promised at the top level stays, marked as such.
        if (!docs.some((doc) => (doc.tags ?? []).some((tag) => tag.tagName.text === "contract"))) {
          problems.push(`${where}: not a namespace (export * as Name from "./Name.ts"), nor a @contract name`)
        }
        continue
      }
      const summary = docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "").join("").trim()
      const tags = docs.flatMap((doc) => (doc.tags ?? []).map((tag) => tag.tagName.text))
      if (summary === "" || !tags.includes("since")) {
        problems.push(`${where}: ${statement.exportClause.name.text} needs a doc comment with a summary and @since`)
      }
    }
    assert.deepStrictEqual(problems, [])
    assert.isAbove(index.statements.length, 10)
  })

  it("every public module opens with a module doc that has @since", () => {
    const modules = publicModules()
    assert.include(modules.map(relative), "src/runner/Runner.ts")
    assert.include(modules.map(relative), "src/runner/Eager.ts")
    const missing = modules.filter((file) => !(moduleDoc(file)?.includes("@since") ?? false)).map(relative)
    assert.deepStrictEqual(missing, [])
  })

  it("one way in: no public symbol is reachable by two paths (a @contract name is an alias of a namespace member)", () => {
    const byTarget = new Map<ts.Symbol, Array<string>>()
    for (const exported of walk().filter((e) => !e.internal)) {
      byTarget.set(exported.symbol, [...(byTarget.get(exported.symbol) ?? []), exported.path])
    }
    const contracts = contractNames()
    assert.deepStrictEqual(contracts, ["agent-trials runTrials"])
    const twice = [...byTarget.values()]
      .map((paths) => paths.filter((p) => !contracts.includes(p)))
      .filter((paths) => paths.length > 1)
    assert.deepStrictEqual(twice, [])
    // Each contract name is the same symbol as a namespace member, not a second implementation.
    for (const contract of contracts) {
      const paths = [...byTarget.values()].find((p) => p.includes(contract))
      assert.isTrue(paths !== undefined && paths.some((p) => p !== contract && p.includes(".")), `${contract}: ${paths}`)
    }
    assert.isAbove(byTarget.size, 50)
  })

  it("every public export has a summary, @category and @since (or says @internal)", () => {
    const exports = walk()
    const problems = exports.filter((e) => !e.internal).flatMap((e) => {
      const missing = [
        ...(e.summary === "" ? ["a summary"] : []),
        ...(e.tags.includes("category") ? [] : ["@category"]),
        ...(e.tags.includes("since") ? [] : ["@since"])
      ]
      return missing.length === 0 ? [] : [`${e.path}: no ${missing.join(", ")}`]
    })
    assert.deepStrictEqual(problems, [])
    // The walk reaches into the namespaces and the eager entry.
    const paths = exports.map((e) => e.path)
    assert.include(paths, "agent-trials Runner.runTrials")
    assert.include(paths, "agent-trials Probe.make")
    assert.include(paths, "agent-trials/eager runTrialsEager")
  })

  it("the probe's mutable counters are not public: a Probe is read-only, made by Probe.make", () => {
    const probe = walk().find((e) => e.path === "agent-trials Probe.Probe")
    assert.isDefined(probe)
    const type = checker.getDeclaredTypeOfSymbol(probe!.symbol)
    const members = checker.getPropertiesOfType(type)
    const writable = members.filter((member) => {
      const declaration = member.valueDeclaration
      return declaration !== undefined && ts.isPropertySignature(declaration) &&
        !(ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly)
    })
    assert.deepStrictEqual(writable.map((member) => member.name), [])
    const names = members.map((member) => member.name)
    assert.includeMembers(names, ["active", "peakActive", "outstanding", "liveFibers", "snapshot"])
    for (const method of ["callStarted", "unitStarted", "unitEnded", "fiberStarted", "resetPeaks"]) {
      assert.notInclude(names, method)
    }
    const probeModule = walk().filter((e) => e.path.startsWith("agent-trials Probe.")).map((e) => e.path)
    assert.deepStrictEqual(probeModule.sort(), ["agent-trials Probe.Probe", "agent-trials Probe.ProbeSnapshot", "agent-trials Probe.make"])
    const misuse = diagnosticsOf(broken.probeMisuse)
    assert.strictEqual(misuse.length, 2, misuse.join("\n"))
    assert.match(misuse[0], /^broken\.md:45: TS2540 Cannot assign to 'active' because it is a read-only property/)
    assert.match(misuse[1], /^broken\.md:46: TS2741 Property '\[TypeId\]' is missing/)
  })
})

describe("examples in doc comments and README.md", { timeout: 120_000 }, () => {
  it("are found: in src/ doc comments and in README.md", () => {
    const origins = new Set(examples.map((example) => relative(example.origin)))
    assert.include([...origins], "README.md")
    assert.include([...origins], "src/runner/Runner.ts")
    assert.isAtLeast(examples.length, 10)
  })

  it("each is a complete program that imports from the package", () => {
    assert.deepStrictEqual(examples.flatMap(conventionProblems), [])
  })

  it("each type-checks against the source (agent-trials mapped to src/index.ts, not dist/)", () => {
    assert.deepStrictEqual(examples.flatMap(diagnosticsOf), [])
    const dist = program.getSourceFiles().map((file) => relative(file.fileName)).filter((file) => file.startsWith("dist/"))
    assert.deepStrictEqual(dist, [])
  })

  it("a broken example is reported at the line where it is written", () => {
    const reported = diagnosticsOf(broken.typeError)
    assert.strictEqual(reported.length, 1, reported.join("\n"))
    assert.match(reported[0], /^broken\.md:13: TS2345 Argument of type 'string' is not assignable to parameter of type 'Agent/)
    assert.deepStrictEqual(conventionProblems(broken.relativeImport), [
      `broken.md:20: imports by a relative path: import from "agent-trials" as a user would`
    ])
    assert.deepStrictEqual(conventionProblems(broken.noImport), [
      `broken.md:30: not a complete program: import what it uses from "agent-trials" and "effect"`
    ])
  })
})

// Runs `file` with Node 24 and tsx's loader, as `npm run trials` runs the command.
const runTs = (file: string, cwd: string) =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const bin = path.join(root, "node_modules", ".bin")
    const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env["PATH"] ?? ""}` }
    execFile(path.join(bin, "node"), ["--import", "tsx", file], { cwd, env }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
  })

describe("README's summary example (The library)", { timeout: 120_000 }, () => {
  it("runs as written on a three-line tasks.jsonl: the summary of three completed trials, NodeServices.layer providing FileSystem", async () => {
    const readme = path.join(root, "README.md")
    const example = examplesInMarkdown(readme, fs.readFileSync(readme, "utf8"))
      .find((e) => e.code.startsWith("// summary.ts: the end-of-run summary"))
    assert.isDefined(example, "README.md has no ```ts block starting with // summary.ts:")
    assert.include(example!.code, "NodeServices.layer")
    // Inside the repository (its node_modules resolve effect and @effect/platform-node), in a
    // folder git ignores; agent-trials is the source, as the package maps it to dist/.
    fs.mkdirSync(path.join(root, ".scratch"), { recursive: true })
    const dir = fs.mkdtempSync(path.join(root, ".scratch", "docs-summary-"))
    try {
      const index = path.relative(dir, path.join(root, "src", "index.ts")).split(path.sep).join("/")
      fs.writeFileSync(path.join(dir, "summary.ts"), example!.code.replace(`from "agent-trials"`, `from "${index}"`))
      fs.writeFileSync(path.join(dir, "tasks.jsonl"), ["a", "b", "c"].map((id) => JSON.stringify({ id, inputs: {} }) + "\n").join(""))
      const result = await runTs("summary.ts", dir)
      const shown = `exit ${result.code}\n${result.stdout}\n${result.stderr}`
      assert.strictEqual(result.code, 0, shown)
      assert.match(result.stdout, /^run run: finished$/m, shown)
      assert.include(result.stdout, "  trials this run: 3 (completed 3, failed 0, partial 0)", shown)
      const peak = /peak active calls (\d+)/.exec(result.stdout)
      assert.isNotNull(peak, shown)
      assert.isAtLeast(Number(peak![1]), 1)
      assert.isAtMost(Number(peak![1]), 3)
      assert.include(result.stdout, "  results: (not written)", shown)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
