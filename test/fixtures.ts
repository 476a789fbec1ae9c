import { Effect, Latch, Stream } from "effect"
import type { AgentEvalTask, AgentOutput } from "../src/domain/Trial.ts"

/** `n` tasks with ids `t0..t{n-1}`, generated lazily. */
export const tasksStream = (n: number): Stream.Stream<AgentEvalTask> =>
  Stream.fromIterable(taskIterable(n))

export function* taskIterable(n: number): Iterable<AgentEvalTask> {
  for (let i = 0; i < n; i++) yield { id: `t${i}`, inputs: { i } }
}

/**
 * An agent held on a shared gate: every call waits for the latch, then takes
 * one virtual second, so `TestClock.adjust("1 second")` releases one wave.
 */
export const gatedAgent = Effect.fnUntraced(function*() {
  const gate = yield* Latch.make(false)
  const agent = (task: AgentEvalTask): Effect.Effect<AgentOutput> =>
    gate.await.pipe(
      Effect.andThen(Effect.sleep("1 second")),
      Effect.as({ output_text: `out:${task.id}` })
    )
  return { gate, agent } as const
})
