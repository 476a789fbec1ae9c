import { Effect, Stream } from "effect"
import { Agent, Runner } from "../src/index.ts"

// Any agent: here a Promise function, as a user's SDK call would be.
const agent = Agent.fromPromise(async (task, { signal }) => {
  signal.throwIfAborted()
  return `echo: ${JSON.stringify(task.inputs)}`
})

export const program = Effect.gen(function*() {
  const runner = yield* Runner.Runner
  const tasks = Stream.range(1, 1000).pipe(Stream.map((i) => ({ id: `task-${i}`, inputs: { i } })))
  // Every run inside this layer shares its AGENT_TRIALS_PARALLELISM permits.
  const summary = yield* runner.run(tasks, agent).pipe(
    Stream.runFold(() => ({ completed: 0, failed: 0 }), (acc, trial) => {
      acc[trial.status === "completed" ? "completed" : "failed"]++
      return acc
    })
  )
  return { summary, peakActive: runner.probe.peakActive }
}).pipe(Effect.provide(Runner.layer))
