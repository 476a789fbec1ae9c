/**
 * The README's flag table of `run` against the command itself: every flag
 * that `run --help` lists has a row, with the environment variable the help
 * names, and every row is a flag the command has. A flag added without its
 * row (as `--report` and `--cluster` once were) fails here.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, repoRoot, run } from "./cli-helpers.ts"

afterAll(killAll)

interface HelpFlag {
  readonly name: string
  readonly env: string | undefined
}

// `  --timeout DURATION   Per attempt ... [env AGENT_TRIALS_TIMEOUT]`, between FLAGS and GLOBAL FLAGS.
const helpFlags = (help: string): ReadonlyArray<HelpFlag> => {
  const section = help.slice(help.indexOf("\nFLAGS\n"), help.indexOf("\nGLOBAL FLAGS\n"))
  return section.split("\n").flatMap((line) => {
    const m = /^ {2}--([a-z][a-z-]*)\b.*?(?:\[env (AGENT_TRIALS_[A-Z_]+)\])?\s*$/.exec(line)
    return m === null ? [] : [{ name: m[1], env: m[2] }]
  })
}

// The rows of the table under "Running an evaluation", up to the first blank line.
const readmeRows = (): Map<string, string> => {
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
  const start = readme.indexOf("| flag | env | default | meaning |")
  assert.isAbove(start, -1, "README.md has the run flag table")
  const table = readme.slice(start, readme.indexOf("\n\n", start)).split("\n").slice(2)
  const rows = new Map<string, string>()
  for (const row of table) {
    const cells = row.split(" | ")
    const flag = /`--([a-z][a-z-]*)/.exec(cells[0])
    if (flag !== null) rows.set(flag[1], cells[1] ?? "")
  }
  return rows
}

describe("README: the flag table of run", () => {
  it("has a row for every flag of run --help, naming its variable, and no row for a flag run lacks", async () => {
    const result = await run(["--help"])
    assert.strictEqual(result.code, 0, describeResult(result))
    const flags = helpFlags(result.stdout)
    assert.isAtLeast(flags.length, 25, result.stdout)
    const rows = readmeRows()
    for (const flag of flags) {
      assert.isTrue(rows.has(flag.name), `README.md's flag table has no row for --${flag.name}`)
      if (flag.env !== undefined) {
        assert.include(rows.get(flag.name), `\`${flag.env}\``, `the row of --${flag.name} names ${flag.env}`)
      }
    }
    const known = new Set(flags.map((f) => f.name))
    for (const name of rows.keys()) assert.isTrue(known.has(name), `README.md lists --${name}, which run does not have`)
  }, 60_000)
})
