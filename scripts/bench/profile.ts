/**
 * Summarises V8 CPU profiles (`node --cpu-prof`, or `npm run bench -- --cpu-prof DIR`):
 * self time by area, by function and by file, and inclusive time by function.
 *
 *   npx tsx scripts/bench/profile.ts /tmp/prof/*.cpuprofile [--top 20] [--trials 1000000]
 *
 * Code from the esbuild bundle (.bench/worker-HASH.mjs) is mapped back to its
 * source file and line through the bundle's source map.
 */
import { existsSync, readFileSync } from "node:fs"
import { SourceMap, type SourceMapPayload } from "node:module"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

// Bundle positions mapped back to src/ through the bundle's source map.
const maps = new Map<string, SourceMap | undefined>()
const sourceMapOf = (url: string): SourceMap | undefined => {
  if (!maps.has(url)) {
    const file = `${fileURLToPath(url)}.map`
    maps.set(url, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, "utf8")) as SourceMapPayload) : undefined)
  }
  return maps.get(url)
}

const shorten = (url: string): string =>
  url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "").replace(/^(\.\.\/)+/, "").replace(/^\/work\/main\//, "")

/** `file:line` of a frame, 1-based, in the source the code came from. */
const place = ({ url, lineNumber, columnNumber }: CallFrame): { file: string; line: number } => {
  if (url === "") return { file: "(native)", line: 0 }
  if (/\/\.bench\/worker-\w+\.mjs$/.test(url)) {
    const entry = sourceMapOf(url)?.findEntry(lineNumber, columnNumber)
    if (entry !== undefined && "originalSource" in entry) {
      return { file: shorten(entry.originalSource), line: entry.originalLine + 1 }
    }
  }
  return { file: shorten(url), line: lineNumber + 1 }
}
const nameOf = (frame: CallFrame): string => {
  const { file, line } = place(frame)
  return `${frame.functionName || "(anonymous)"} ${file}${line > 0 ? `:${line}` : ""}`
}

// Coarse areas, so "where does a trial's time go" reads in a few lines.
const areas: ReadonlyArray<readonly [string, RegExp]> = [
  ["garbage collector", /^\(garbage collector\)/],
  ["Effect fiber run loop (internal/effect.js, internal/core.js)", / effect\/dist\/internal\/(effect|core)\.js/],
  ["Stream.mapEffect machinery (Queue, Channel, Stream, Pull)", / effect\/dist\/(Queue|Channel|Stream|Pull|MutableList)\.js/],
  ["Semaphore and Scheduler", / effect\/dist\/(Semaphore|Scheduler)\.js/],
  ["other effect modules (Context, Predicate, Pipeable, ...)", / effect\/dist\//],
  ["agent-trials src/", / src\//],
  ["bench harness (agents, task generator, memory sampler)", / scripts\//],
  ["node internals (timers, async_hooks, AbortController, ...)", / node:/],
  ["other native (microtasks, memoryUsage, program)", /./]
]
const areaOf = (name: string): string => areas.find(([, re]) => re.test(name))![0]

const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us)

const summarise = (profile: Profile) => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const selfByFn = new Map<string, number>()
  const selfByFile = new Map<string, number>()
  const selfByArea = new Map<string, number>()
  const totalByFn = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0
    total += us
    const node = byId.get(id)!
    const name = nameOf(node.callFrame)
    add(selfByFn, name, us)
    add(selfByArea, areaOf(name), us)
    add(selfByFile, place(node.callFrame).file, us)
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = nameOf(byId.get(at)!.callFrame)
      if (!seen.has(key)) add(totalByFn, key, us)
      seen.add(key)
    }
  })
  return { total, selfByFn, selfByFile, selfByArea, totalByFn }
}

// With --trials, each row also shows its share of a trial in microseconds (sampled time / T).
const top = (title: string, map: Map<string, number>, total: number, n: number, trials?: number): string => {
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)
  const perTrial = (us: number) => (trials === undefined ? "" : `${(us / trials).toFixed(2).padStart(7)} us/trial  `)
  return [
    title,
    ...rows.map(([k, us]) =>
      `${((us / total) * 100).toFixed(1).padStart(6)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${perTrial(us)}${k}`
    )
  ].join("\n")
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "20" }, trials: { type: "string" } }
})
const n = Number(values.top)
const trials = values.trials === undefined ? undefined : Number(values.trials)
for (const file of positionals) {
  const { total, selfByFn, selfByFile, selfByArea, totalByFn } = summarise(JSON.parse(readFileSync(file, "utf8")) as Profile)
  // The fiber run loop (internal/effect.js, internal/core.js) and Node's event
  // loop are under everything; the operators and our code are what differ.
  const generic = /^\S+ (\(native\)|node:|effect\/dist\/internal\/(effect|core)\.js)/
  const operators = new Map([...totalByFn].filter(([k]) => !k.startsWith("(") && !generic.test(k)))
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled\n`)
  console.log(top("self time by area", selfByArea, total, areas.length, trials) + "\n")
  console.log(top("self time by function", selfByFn, total, n, trials) + "\n")
  console.log(top("self time by file", selfByFile, total, n) + "\n")
  console.log(top("total (inclusive) time by function, outside the fiber run loop and node internals", operators, total, n) + "\n")
}
