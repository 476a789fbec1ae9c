/**
 * What a trial's record may keep of what came from outside: an agent's
 * output and a failure's message and steps, every string scrubbed of the
 * run's secrets (its `Redactor`: tool results and errors, tool-call
 * arguments, a module agent's text) and nothing JSON cannot write. Applied
 * where an attempt settles, for every agent and tool source alike, on a
 * local run and on a cluster's workers.
 *
 * @internal
 */
import { Exit, Schema } from "effect"
import { InvalidAgentOutput } from "../../domain/Errors.ts"
import { isPlainOutput } from "../../domain/internal/agent.ts"
import { schemaFailure } from "../../domain/internal/failure.ts"
import { AgentOutput, type TrialError } from "../../domain/Trial.ts"
import { describeUnwritable, writable } from "../../internal/writable.ts"
import type { Secrets } from "../Redactor.ts"

/**
 * A successful attempt's output as it will be recorded; an output that
 * cannot be written as JSON (a cycle, a BigInt, a function, a `toJSON` that
 * throws, a number that is not finite) fails the attempt with
 * `InvalidAgentOutput` naming the field and why. Not retried: the agent
 * would answer the same.
 *
 * @internal
 */
export const recordableOutput = <E>(
  exit: Exit.Exit<AgentOutput, E>,
  secrets: Secrets
): Exit.Exit<AgentOutput, E | InvalidAgentOutput> => {
  if (exit._tag === "Failure") return exit
  // No secret known to the run (a library run without keys): no string to scrub.
  const checked = writable(exit.value, "output", secrets.nothing() ? undefined : secrets.scrub)
  if (checked._tag === "Writable") {
    // Counts and steps an agent made itself (a tool loop's usage from a
    // server's numbers) must read back too: a cost is priced from them.
    const typed = exit.value.usage !== undefined || exit.value.trajectory !== undefined ? misfit(checked.value) : undefined
    if (typed !== undefined) {
      return Exit.fail(new InvalidAgentOutput({ message: `the agent's output would not read back: ${typed}` }))
    }
    return checked.value === exit.value ? exit : Exit.succeed(checked.value as AgentOutput)
  }
  // What the call spent still counts, unless the usage is what cannot be written.
  const usage = checked.at.startsWith("output.usage") ? undefined : usageOf(exit.value)
  return Exit.fail(
    new InvalidAgentOutput({
      message: `the agent's output cannot be written as JSON: ${describeUnwritable(checked)}`,
      ...(usage === undefined ? undefined : { usage })
    })
  )
}

/**
 * A failed trial's error as it will be recorded: its message scrubbed, its
 * steps scrubbed, or dropped (the message says why) when they cannot be
 * written as JSON.
 *
 * @internal
 */
export const recordableError = (error: TrialError, secrets: Secrets): TrialError => {
  const scrub = secrets.scrub
  const scrubbed = scrubText(error, scrub)
  if (error.trajectory === undefined) return scrubbed
  const checked = writable(error.trajectory, "error.trajectory", scrub)
  if (checked._tag === "Writable") {
    return checked.value === error.trajectory
      ? scrubbed
      : { ...scrubbed, trajectory: checked.value as TrialError["trajectory"] & {} }
  }
  const { trajectory: _, ...rest } = scrubbed
  return { ...rest, message: `${scrubbed.message} (its steps are not kept: ${scrub(describeUnwritable(checked))})` }
}

// The message and the text a module agent returned (kept beside a schema
// failure of its steps): the same object when neither held a secret.
const scrubText = (error: TrialError, scrub: (text: string) => string): TrialError => {
  const message = scrub(error.message)
  const text = error.output_text === undefined ? undefined : scrub(error.output_text)
  return message === error.message && text === error.output_text
    ? error
    : { ...error, message, ...(text === undefined ? undefined : { output_text: text }) }
}

// An output whose walk threw may throw again on the way to its usage.
const usageOf = (output: AgentOutput): AgentOutput["usage"] => {
  try {
    return output.usage
  } catch {
    return undefined
  }
}

const decodeOutput = Schema.decodeUnknownExit(AgentOutput)

// Where `output` fails the AgentOutput Schema (`output.usage.input_tokens: Expected an integer, got 1e+300`).
const misfit = (output: unknown): string | undefined => {
  if (isPlainOutput(output)) return undefined
  const exit = decodeOutput(output)
  if (exit._tag === "Success") return undefined
  const { path, problem } = schemaFailure(exit.cause.reasons[0])
  const field = path?.join(".") ?? ""
  return `${field === "" ? "output" : `output.${field}`}: ${problem}`
}

