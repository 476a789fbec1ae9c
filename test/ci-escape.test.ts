/**
 * The escaping of the outputs CI reads, over hostile texts: every task id
 * survives the JUnit XML as the strict reader (test/xml-strict.ts) decodes
 * it, with the characters XML cannot hold shown as `<U+XXXX>`, and every
 * Markdown cell stays one cell on one line.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Junit from "../src/report/ci/Junit.ts"
import * as Markdown from "../src/report/ci/Markdown.ts"
import { Tasks } from "../src/report/ci/Tasks.ts"
import { all, parseXml } from "./xml-strict.ts"

const HOSTILE = [
  `<&"'>`,
  "]]>",
  "a]]>b<![CDATA[c]]>",
  "nul\u0000 bell\u0007 esc\u001b",
  "line\nbreak\r\ntab\t",
  "lone \ud800 surrogate \udc00",
  "pair \ud83d\ude00 ok",
  "\ufffe\uffff",
  "bidi \u202e gnp.exe",
  "| pipe \\ back `tick` *star* _under_ [link](x) <b>html</b> &amp;"
]

const mark = (c: string) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`
// What the XML reader gives back: the text with each character XML cannot hold as its mark.
const expected = (text: string) =>
  text.replace(
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    mark
  )

describe("the CI outputs' escaping", () => {
  it("JUnit: each hostile task id, error and answer is well-formed XML and reads back as written", () => {
    const tasks = new Tasks(["exact"])
    HOSTILE.forEach((id, i) => {
      const metadata = { started_at: "", finished_at: "", latency_ms: 1 }
      tasks.add({ id: `${id}:1`, task_id: id, status: "failed", metadata, error: { type: id, message: id, occurred_at: "" } })
      tasks.add({
        id: `${id}:2`,
        task_id: id,
        status: "completed",
        metadata,
        output: { output_text: id },
        scores: { exact: { value: i, passed: false, explanation: id } }
      })
    })
    const xml = Junit.toXml(
      { name: HOSTILE.join(""), classname: HOSTILE[0]!, epochs: 2, wallSeconds: 1, passRate: 0, taskPass: 1, scrub: (t) => t },
      tasks.byId.values()
    )
    const root = parseXml(xml)
    assert.deepStrictEqual(all(root, "testcase").map((t) => t.attrs["name"]), HOSTILE.map(expected))
    assert.strictEqual(all(root, "testsuite")[0]!.attrs["name"], expected(HOSTILE.join("")))
    for (const [i, testcase] of all(root, "testcase").entries()) {
      const error = testcase.children[0]!
      assert.strictEqual(error.name, "error")
      assert.strictEqual(error.attrs["type"], expected(HOSTILE[i]!))
      assert.include(error.text, `: ${expected(HOSTILE[i]!)}`)
    }
  })

  it("JUnit: the scrub runs before the escaping", () => {
    const tasks = new Tasks([])
    tasks.add({ id: "t:1", task_id: "sk-secret-1234<", status: "completed", metadata: { started_at: "", finished_at: "", latency_ms: 0 } })
    const xml = Junit.toXml(
      { name: "r", classname: "c", epochs: 1, wallSeconds: 0, passRate: null, taskPass: 1, scrub: (t) => t.replaceAll("sk-secret-1234", "<redacted>") },
      tasks.byId.values()
    )
    assert.include(xml, `name="&lt;redacted&gt;&lt;"`)
    assert.notInclude(xml, "sk-secret")
  })

  it("Markdown: a cell is one line with no bare |, and is cut at its length", () => {
    for (const text of HOSTILE) {
      const cell = Markdown.cell(text)
      assert.notMatch(cell, /[\n\r]/)
      assert.notMatch(cell.replaceAll("\\\\", "").replaceAll("\\|", ""), /\|/)
      assert.notMatch(cell, /<(?!br>)/)
    }
    assert.strictEqual(Markdown.cell("x".repeat(300), 10), "x".repeat(10) + "…")
    assert.strictEqual(Markdown.cell("a|b\nc"), "a\\|b<br>c")
  })
})
