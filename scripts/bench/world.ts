/**
 * What a world per trial costs (`npm run bench -- --world N`, or
 * `--world-only`): the CLI as users run it (`npm run trials -- run`) over N
 * tasks, in pairs that differ only by the world, each run's throughput read
 * from its own summary (`throughput_per_s`, which leaves out the CLI's
 * start):
 *
 * - `sim:latency=0ms` with nothing, with `--workspace` (a directory made
 *   and removed per trial, one task file written into it), with `--setup
 *   true` (a shell per trial), and with `--sandbox bwrap --setup true` (the
 *   shell under bubblewrap);
 * - an `openai:` agent against a local OpenAI-compatible server on
 *   127.0.0.1 that answers at once: one call and no tools, against two
 *   calls with `--tools exec` (the model asks `run_command` once, `echo ok >
 *   out.txt`) in a workspace, without a sandbox and under bubblewrap, and
 *   the same with `--score check:'test -s out.txt'`.
 *
 * Each configuration runs `--rounds` times (default 3), alternating; the
 * median throughput is kept. `--quick` (the quick bench's smoke) runs each
 * plain run and the last, fullest run added to it only: every piece of the
 * world once, in four runs rather than eight. The cost of a world per trial is printed as
 * the time it adds to each trial's slot: `P / throughput` with the world
 * less the same without it (at parallelism P).
 *
 *   node scripts/bench/world.ts [--trials 2000] [--parallelism 8] [--rounds 3] [--quick] [--via npm|script]
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import os from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { launcherOf, runCli } from "./cli.ts"

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "2000" },
    parallelism: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    quick: { type: "boolean", default: false },
    via: { type: "string" }
  }
})
const via = launcherOf(values.via)
const trials = Number(values.trials)
const parallelism = Number(values.parallelism)
const rounds = Number(values.rounds)

// An OpenAI-compatible model that answers at once: with tools, it asks for
// `run_command` until it has seen one result, then answers; without, it answers.
const startModel = (): Promise<http.Server> => {
  const server = http.createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => {
      const request = JSON.parse(body) as { messages: Array<{ role: string }>; tools?: Array<unknown> }
      const asked = request.tools !== undefined && !request.messages.some((m) => m.role === "tool")
      const message = asked
        ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "run_command", arguments: JSON.stringify({ command: "echo ok > out.txt" }) } }]
        }
        : { role: "assistant", content: "done" }
      res.setHeader("content-type", "application/json")
      res.end(JSON.stringify({
        id: "x",
        object: "chat.completion",
        model: "m",
        choices: [{ index: 0, message, finish_reason: asked ? "tool_calls" : "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }
      }))
    })
  })
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)))
}

interface Config {
  readonly name: string
  /** The configuration this one's world is added to. */
  readonly base?: string
  readonly args: ReadonlyArray<string>
}

const bwrapUsable = (): boolean => {
  try {
    execFileSync("bwrap", ["--ro-bind", "/", "/", "--unshare-net", "--", "true"], { stdio: "ignore", timeout: 10_000 })
    return true
  } catch {
    return false
  }
}

const main = async () => {
  const dir = mkdtempSync(join(os.tmpdir(), "agent-trials-bench-world-"))
  const model = await startModel()
  try {
    const tasks = join(dir, "tasks.jsonl")
    writeFileSync(
      tasks,
      Array.from({ length: trials }, (_, i) => JSON.stringify({ id: `t${i}`, inputs: { prompt: `do ${i}` }, reference: "done", files: { "in.txt": `${i}` } }) + "\n").join("")
    )
    const url = `openai:http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`
    const ws = ["--workspace", "--workspace-dir", dir]
    const bwrap = bwrapUsable()
    const sandbox = bwrap ? ["--sandbox", "bwrap"] : []
    if (!bwrap) console.error("world: bwrap is not usable here: the sandboxed rows are left out")
    const all: ReadonlyArray<Config> = [
      { name: "sim", args: ["--agent", "sim:latency=0ms"] },
      { name: "sim --workspace", base: "sim", args: ["--agent", "sim:latency=0ms", ...ws] },
      { name: "sim --workspace --setup true", base: "sim", args: ["--agent", "sim:latency=0ms", ...ws, "--setup", "true"] },
      ...(bwrap ? [{ name: "sim --workspace --sandbox bwrap --setup true", base: "sim", args: ["--agent", "sim:latency=0ms", ...ws, ...sandbox, "--setup", "true"] }] : []),
      { name: "openai:", args: ["--agent", url, "--model", "m"] },
      { name: "openai: --workspace --tools exec", base: "openai:", args: ["--agent", url, "--model", "m", ...ws, "--tools", "exec"] },
      ...(bwrap ? [{ name: "openai: --workspace --sandbox bwrap --tools exec", base: "openai:", args: ["--agent", url, "--model", "m", ...ws, ...sandbox, "--tools", "exec"] }] : []),
      ...(bwrap
        ? [{
          name: "... and --score check:'test -s out.txt'",
          base: "openai:",
          args: ["--agent", url, "--model", "m", ...ws, ...sandbox, "--tools", "exec", "--score", "check:test -s out.txt"]
        }]
        : [])
    ]
    // Quick: the plain runs, and for each the last (fullest) run with a world on it, named in full
    // where its name reads on from the row before it.
    const configs = values.quick
      ? all.filter((c) => c.base === undefined || c === all.findLast((d) => d.base === c.base)).map((c) =>
        c.name.startsWith("... and ") ? { ...c, name: `${all[all.indexOf(c) - 1]!.name} ${c.name.slice("... and ".length)}` } : c
      )
      : all
    const throughputs = new Map<string, Array<number>>()
    for (let round = 0; round < rounds; round++) {
      for (const config of configs) {
        const summary = join(dir, "summary.json")
        rmSync(summary, { force: true })
        const command = ["run", "--tasks", tasks, ...config.args, "--parallelism", String(parallelism), "--summary", summary, "--no-progress"]
        const record = await runCli(via, trials, { sampleMs: 200, timeoutMs: 1_800_000 }, undefined, command)
        if (record.status !== "ok") throw new Error(`world: ${config.name}: ${record.status} ${record.detail ?? ""}`)
        const s = JSON.parse(readFileSync(summary, "utf8")) as { throughput_per_s: number; failed: number }
        if (s.failed > 0) throw new Error(`world: ${config.name}: ${s.failed} trials failed`)
        throughputs.set(config.name, [...(throughputs.get(config.name) ?? []), s.throughput_per_s])
        console.error(`world: round ${round + 1} ${config.name}: ${s.throughput_per_s} trials/s`)
      }
    }
    const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    console.log(`\nA world per trial: ${trials} trials at parallelism ${parallelism}, median of ${rounds} rounds (throughput from each run's summary)\n`)
    console.log("| Run | trials/s | added per trial |")
    console.log("|---|---:|---:|")
    for (const config of configs) {
      const t = median(throughputs.get(config.name)!)
      const base = config.base === undefined ? undefined : median(throughputs.get(config.base)!)
      const added = base === undefined ? "" : `${((parallelism / t - parallelism / base) * 1000).toFixed(2)} ms`
      console.log(`| \`${config.name}\` | ${t.toFixed(0)} | ${added} |`)
    }
  } finally {
    model.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
