/**
 * `--tools exec` through the real command: a scripted model on 127.0.0.1
 * calls `run_command` with the task's instruction as the command, then
 * answers with the tool's result. The command writes in the trial's
 * workspace, its call and result are in the trajectory, a command past
 * `--exec-timeout` is killed and the model told; `exec` without
 * `--workspace` is refused; under `--sandbox bwrap` a write outside the
 * workspace fails and the host's 127.0.0.1 is out of reach without
 * `--sandbox-network full`; `--sandbox-memory` fails a big allocation.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { serve } from "./http-server.ts"
import { answer, callTools, firstUser, modelServer } from "./tool-model-server.ts"

const made: Array<string> = []
afterAll(() => {
  killAll()
  removeTempDirs()
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const node = path.join(repoRoot, "node_modules", ".bin", "node")

// Turn 1 runs the task's instruction; turn 2 answers with the tool's result as the model saw it.
const execModel = modelServer((turn, body) =>
  turn === 1
    ? callTools([{ id: "c1", name: "run_command", args: { command: firstUser(body) } }])
    : answer(String(body.messages.find((m) => m["role"] === "tool")?.["content"]))
)

const tasks = (dir: string, commands: Record<string, string>) =>
  writeJsonl(path.join(dir, "tasks.jsonl"), Object.entries(commands).map(([id, instruction]) => ({ id, inputs: { instruction } })))

/** The tool's result of each trial, by task id, and its trial. */
const results = (out: string) =>
  new Map(readTrials(out).map((trial) => {
    const result = trial.output?.trajectory?.find((s) => s.type === "tool_result")
    return [trial.task_id, { trial, result: result?.content as any }] as const
  }))

const execRun = (base: string, dir: string, commands: Record<string, string>, flags: ReadonlyArray<string> = []) => {
  const out = path.join(dir, "out.jsonl")
  return Effect.promise(() =>
    run([
      "--agent", `openai:${base}/v1`, "--model", "m", "--tools", "exec", "--tasks", tasks(dir, commands),
      "--out", out, "--no-progress", "--score", "none", "--workspace", "--workspace-dir", path.join(dir, "ws"), ...flags
    ], { env: { OPENAI_API_KEY: "k" } })
  ).pipe(Effect.map((result) => ({ result, out })))
}

describe("run --tools exec", () => {
  it.live("run_command writes a file in the trial's workspace; the trajectory holds the call and its result", () =>
    Effect.gen(function*() {
      const model = yield* execModel
      const dir = tempDir()
      const { result, out } = yield* execRun(model.base, dir, {
        w: "echo hello > made.txt && cat made.txt && pwd && echo to-stderr >&2",
        f: "echo failing; exit 3"
      }, ["--keep-workspaces"])
      assert.strictEqual(result.code, 0, describeResult(result))
      const byTask = results(out)
      const w = byTask.get("w")!
      assert.strictEqual(w.trial.status, "completed")
      const steps = w.trial.output!.trajectory!
      assert.deepStrictEqual(steps.map((s) => s.type), ["model", "tool_call", "tool_result", "model"])
      assert.strictEqual(steps[1]!.name, "run_command")
      assert.deepStrictEqual(steps[1]!.arguments, { command: "echo hello > made.txt && cat made.txt && pwd && echo to-stderr >&2" })
      const [runDir] = fs.readdirSync(path.join(dir, "ws"))
      const workspace = path.join(dir, "ws", runDir!, "w:1")
      assert.deepStrictEqual(w.result, { exit_code: 0, stdout: `hello\n${workspace}`, stderr: "to-stderr" })
      assert.strictEqual(fs.readFileSync(path.join(workspace, "made.txt"), "utf8"), "hello\n")
      // The model was sent the tool and its result.
      const second = model.received.map((r) => JSON.parse(r.body)).find((b) => JSON.stringify(b).includes("to-stderr"))
      assert.deepStrictEqual(second.tools.map((t: { function: { name: string } }) => t.function.name), ["run_command"])
      // A non-zero exit is a result the model sees, not a failed trial.
      assert.strictEqual(byTask.get("f")!.trial.status, "completed")
      assert.deepStrictEqual(byTask.get("f")!.result, { exit_code: 3, stdout: "failing", stderr: "" })
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("what a command prints is scrubbed of the run's secrets before the model or the results see it", () =>
    Effect.gen(function*() {
      const model = yield* execModel
      const dir = tempDir()
      const key = "sk-SECRETexecKey0123456789abcdef"
      const out = path.join(dir, "out.jsonl")
      const result = yield* Effect.promise(() =>
        run([
          "--agent", `openai:${model.base}/v1`, "--model", "m", "--tools", "exec", "--tasks", tasks(dir, { k: `echo "key=$OPENAI_API_KEY"` }),
          "--out", out, "--no-progress", "--score", "none", "--workspace", "--workspace-dir", path.join(dir, "ws")
        ], { env: { OPENAI_API_KEY: key } })
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const seen = results(out).get("k")!.result
      assert.strictEqual(seen.exit_code, 0)
      assert.match(seen.stdout, /^key=/)
      assert.notInclude(seen.stdout, key)
      // Neither the model (the tool message it was sent) nor the results file got it.
      assert.notInclude(model.received.map((r) => r.body).join("\n"), key)
      assert.notInclude(fs.readFileSync(out, "utf8"), key)
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("a command past --exec-timeout is killed, and the model is told with what it wrote so far", () =>
    Effect.gen(function*() {
      const model = yield* execModel
      // --exec-timeout, or --sandbox-timeout when it is shorter.
      for (const flags of [["--exec-timeout", "1s"], ["--exec-timeout", "5m", "--sandbox-timeout", "1s"]]) {
        const { result, out } = yield* execRun(model.base, tempDir(), { slow: "echo started; sleep 30" }, flags)
        assert.strictEqual(result.code, 0, describeResult(result))
        const slow = results(out).get("slow")!
        assert.strictEqual(slow.trial.status, "completed")
        assert.deepStrictEqual(slow.result, {
          exit_code: null,
          timed_out: "killed after 1s: the command did not finish in time",
          stdout: "started",
          stderr: ""
        }, flags.join(" "))
        assert.include(slow.trial.output!.output_text, "killed after 1s")
      }
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("--sandbox-memory: a command that allocates past it fails; below it, it runs", () =>
    Effect.gen(function*() {
      const model = yield* execModel
      const dir = tempDir()
      // 30 MB in a shell variable: dash fails when it cannot allocate it.
      const allocate = `v=$(head -c 30000000 /dev/zero | tr '\\0' a) && echo \${#v}`
      const { result, out } = yield* execRun(model.base, dir, { big: allocate, small: "echo small" }, ["--sandbox-memory", "16MB"])
      assert.strictEqual(result.code, 0, describeResult(result))
      const byTask = results(out)
      assert.notStrictEqual(byTask.get("big")!.result.exit_code, 0, JSON.stringify(byTask.get("big")!.result))
      assert.notInclude(byTask.get("big")!.result.stdout, "30000000")
      assert.deepStrictEqual(byTask.get("small")!.result, { exit_code: 0, stdout: "small", stderr: "" })
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it("is refused without --workspace (exit 2, naming --tools exec); --exec-timeout needs --tools exec", { timeout: 60_000 }, async () => {
    const dir = tempDir()
    const refused = await run(["--agent", "openai:http://127.0.0.1:9/v1", "--model", "m", "--tools", "exec", "--synthetic", "2", "--out", path.join(dir, "o.jsonl"), "--no-progress"])
    assert.strictEqual(refused.code, 2, describeResult(refused))
    assert.include(refused.stderr, "--tools exec needs --workspace (its commands run in each trial's workspace)")
    assert.isFalse(fs.existsSync(path.join(dir, "o.jsonl")))
    const alone = await run(["--agent", "sim", "--synthetic", "2", "--exec-timeout", "5s", "--out", path.join(dir, "p.jsonl"), "--no-progress"])
    assert.strictEqual(alone.code, 2, describeResult(alone))
    assert.include(alone.stderr, "--exec-timeout needs --tools exec (it bounds the exec tool's commands)")
  })
})

describe("run --tools exec --sandbox bwrap", () => {
  it.live("a write outside the workspace fails (read-only file system); inside it works", () =>
    Effect.gen(function*() {
      const model = yield* execModel
      const dir = tempDir()
      // Outside the temp folder (the sandbox's /tmp is its own): in the repository.
      const outside = fs.mkdtempSync(path.join(repoRoot, ".exec-test-"))
      made.push(outside)
      const target = path.join(outside, "escaped.txt")
      const { result, out } = yield* execRun(model.base, dir, {
        inside: "echo in > made.txt && cat made.txt",
        outside: `echo out > '${target}'`
      }, ["--sandbox", "bwrap"])
      assert.strictEqual(result.code, 0, describeResult(result))
      const byTask = results(out)
      assert.deepStrictEqual(byTask.get("inside")!.result, { exit_code: 0, stdout: "in", stderr: "" })
      const refused = byTask.get("outside")!.result
      assert.notStrictEqual(refused.exit_code, 0)
      assert.include(refused.stderr, "Read-only file system")
      assert.isFalse(fs.existsSync(target))
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("a command cannot reach a server on the host's 127.0.0.1 without --sandbox-network; with full it can", () =>
    Effect.gen(function*() {
      const model = yield* execModel
      // A real server on the host's 127.0.0.1, beside the model's.
      const target = yield* serve((_, res) => res.end("ok"))
      const fetch = `'${node}' -e 'require("node:http").get("${target.base}/ping", (r) => { console.log("status " + r.statusCode); process.exit(0) })` +
        `.on("error", (e) => { console.log("error " + e.code); process.exit(3) })'`
      for (const network of [[], ["--sandbox-network", "loopback"], ["--sandbox-network", "full"]]) {
        const dir = tempDir()
        const { result, out } = yield* execRun(model.base, dir, { net: fetch }, ["--sandbox", "bwrap", ...network])
        assert.strictEqual(result.code, 0, describeResult(result))
        const reached = results(out).get("net")!.result
        if (network.includes("full")) {
          assert.strictEqual(reached.exit_code, 0, JSON.stringify(reached))
          assert.strictEqual(reached.stdout, "status 200")
          assert.strictEqual(target.received.length, 1)
        } else {
          assert.strictEqual(reached.exit_code, 3, `${network.join(" ")}: ${JSON.stringify(reached)}`)
          assert.match(reached.stdout, /^error E/)
        }
      }
    }).pipe(Effect.scoped), { timeout: 180_000 })
})
