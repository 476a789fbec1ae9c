/**
 * A run as JUnit XML, the file CI test reporters read: one `<testsuite>`
 * (the run: its id and agent, tests, failures, errors, time, and properties with the
 * pass rate and pass^k for k = 1..epochs), one `<testcase>` per task
 * (classname the dataset, name the task id). A task fails when fewer than
 * `taskPass` of its trials passed: its failing scores (scorer, value,
 * detail) go in `<failure>`; when one of its trials failed (no output) it
 * is an `<error>` instead, with that trial's error type and message, and
 * the failing scores beside it in its text.
 *
 * Every text from outside is scrubbed by `scrub`, then escaped for XML:
 * `& < > " '`, characters XML 1.0 cannot hold (C0 controls but tab,
 * newline and carriage return, U+FFFE, U+FFFF, lone surrogates) and the
 * bidirectional controls (which would show a text reordered) as
 * `<U+XXXX>`, tab, newline and carriage return as character references
 * (an attribute keeps them), and no CDATA section is used, so `]]>` is
 * plain text. The XML is built whole in memory (measured: 17 MB for
 * 100,000 tasks of 2 epochs, two thirds of them failing with one message).
 *
 * @internal
 */
import * as PassAtK from "../../statistics/PassAtK.ts"
import { type Problem, type TaskTally, taskPassed } from "./Tasks.ts"

/**
 * What the suite says of the run.
 *
 * @internal
 */
export interface Suite {
  readonly name: string
  readonly classname: string
  readonly epochs: number
  readonly wallSeconds: number
  readonly passRate: number | null
  readonly taskPass: number
  readonly scrub: (text: string) => string
}

// Characters XML 1.0 cannot hold, and the bidirectional controls a reader would show reordered.
const unfit = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * `text` as XML character data or a quoted attribute value.
 *
 * @internal
 */
export const escapeXml = (text: string): string =>
  text.replace(unfit, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`)
    .replace(/[&<>"']/g, (c) =>
      c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&apos;")
    // A newline or tab in an attribute would be normalised to a space by a reader.
    .replace(/[\n\r\t]/g, (c) => `&#${c.charCodeAt(0)};`)

const seconds = (ms: number): string => (ms / 1000).toFixed(3)

const problemLine = (p: Problem): string =>
  p._tag === "Score"
    // The answer, unless the detail says it already (`expected "yes", got "no"`).
    ? `${p.trial}: ${p.scorer} = ${p.value}: ${p.detail}${
      p.answer === undefined || p.detail.includes(JSON.stringify(p.answer)) ? "" : `; answer: ${JSON.stringify(p.answer)}`
    }`
    : `${p.trial}: ${p.type}: ${p.message}`

/**
 * The JUnit XML of `tasks`.
 *
 * @internal
 */
export const toXml = (suite: Suite, tasks: Iterable<TaskTally>): string => {
  const text = (s: string) => escapeXml(suite.scrub(s))
  const cases: Array<string> = []
  const counts: Array<{ readonly n: number; readonly c: number }> = []
  let failures = 0
  let errors = 0
  let tests = 0
  for (const task of tasks) {
    tests++
    counts.push({ n: task.trials, c: task.passed })
    const open = `    <testcase classname="${text(suite.classname)}" name="${text(task.id)}" time="${seconds(task.latencyMs)}"`
    const head = `${task.passed} of ${task.trials} trials passed (needed ${Math.ceil(suite.taskPass * task.trials - 1e-9)})`
    const body = [...task.problems.map(problemLine), ...(task.more > 0 ? [`and ${task.more} more`] : [])].map(text).join("&#10;")
    if (taskPassed(task, suite.taskPass)) {
      cases.push(`${open} />`)
    } else if (task.errors > 0) {
      errors++
      const first = task.problems.find((p) => p._tag === "Error")
      const type = first?._tag === "Error" ? first.type : "Error"
      const message = first?._tag === "Error" ? first.message : "the trials failed"
      cases.push(`${open}>`, `      <error type="${text(type)}" message="${text(`${head}: ${message}`)}">${body}</error>`, "    </testcase>")
    } else {
      failures++
      cases.push(`${open}>`, `      <failure type="TaskFailed" message="${text(head)}">${body}</failure>`, "    </testcase>")
    }
  }
  const properties = [
    ["pass_rate", suite.passRate === null ? "" : String(suite.passRate)],
    ["task_pass", String(suite.taskPass)],
    ["epochs", String(suite.epochs)],
    ...Array.from({ length: Math.max(suite.epochs, 1) }, (_, i) => {
      const estimate = PassAtK.estimate(counts, i + 1, "pass^k").estimate
      return [`pass^${i + 1}`, estimate === null ? "" : String(estimate)]
    })
  ].map(([name, value]) => `      <property name="${text(name!)}" value="${text(value!)}" />`)
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="agent-trials" tests="${tests}" failures="${failures}" errors="${errors}" time="${suite.wallSeconds.toFixed(3)}">`,
    `  <testsuite name="${text(suite.name)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="0" time="${
      suite.wallSeconds.toFixed(3)
    }">`,
    "    <properties>",
    ...properties,
    "    </properties>",
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    ""
  ].join("\n")
}
