/**
 * The floor of the `wire` part (wire.ts): a plain Node client, no framework.
 * P async loops over one keep-alive `http.Agent` POST what an `openai:` agent
 * sends for a synthetic task, read the whole body, parse its JSON and compare
 * its content with the reference, N requests in all. Run by Node 24 with its
 * own type stripping: `node wire-client.ts URL N P`.
 */
import * as http from "node:http"

const [url, n, p] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])]
const agent = new http.Agent({ keepAlive: true, maxSockets: p })
const target = new URL(url)

const post = (body: string): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
          } catch (error) {
            reject(error)
          }
        })
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(body)
  })

let next = 0
let passed = 0
const loop = async (): Promise<void> => {
  while (next < n) {
    const i = next++
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: `What is ${i} + ${i}?` }] })
    const answer = (await post(body)) as { choices: Array<{ message: { content: string } }> }
    if (answer.choices[0]!.message.content === String(2 * i)) passed++
  }
}
await Promise.all(Array.from({ length: p }, loop))
agent.destroy()
process.stdout.write(`${n} requests, ${passed} answers as expected\n`)
