/**
 * What a trial's record may keep of what came from outside: an agent's
 * output and a failure's message and steps, every string scrubbed of the
 * process's secrets (`scrubRemembered`: tool results and errors, tool-call
 * arguments, a module agent's text) and nothing JSON cannot write. Applied
 * where an attempt settles, for every agent and tool source alike, on a
 * local run and on a cluster's workers.
 *
 * @internal
 */
import { Exit } from "effect"
import { InvalidAgentOutput } from "../../domain/Errors.ts"
import type { AgentOutput, TrialError } from "../../domain/Trial.ts"
import { scrubRemembered } from "../../internal/redact.ts"
import { describeUnwritable, writable } from "../../internal/writable.ts"

/**
 * A successful attempt's output as it will be recorded; an output that
 * cannot be written as JSON (a cycle, a BigInt, a function, a `toJSON` that
 * throws, a number that is not finite) fails the attempt with
 * `InvalidAgentOutput` naming the field and why. Not retried: the agent
 * would answer the same.
 *
 * @internal
 */
export const recordableOutput = <E>(exit: Exit.Exit<AgentOutput, E>): Exit.Exit<AgentOutput, E | InvalidAgentOutput> => {
  if (exit._tag === "Failure") return exit
  // The common output, a text alone: no walk (this runs once per trial).
  const { output_text } = exit.value
  if (typeof output_text === "string" && Object.keys(exit.value).length === 1) {
    const scrubbed = scrubRemembered(output_text)
    return scrubbed === output_text ? exit : Exit.succeed({ output_text: scrubbed })
  }
  const checked = writable(exit.value, "output", scrubRemembered)
  if (checked._tag === "Writable") return checked.value === exit.value ? exit : Exit.succeed(checked.value as AgentOutput)
  // What the call spent still counts, unless the usage is what cannot be written.
  const usage = checked.at.startsWith("output.usage") ? undefined : exit.value.usage
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
export const recordableError = (error: TrialError): TrialError => {
  const message = scrubRemembered(error.message)
  if (error.trajectory === undefined) return message === error.message ? error : { ...error, message }
  const checked = writable(error.trajectory, "error.trajectory", scrubRemembered)
  if (checked._tag === "Writable") {
    return message === error.message && checked.value === error.trajectory
      ? error
      : { ...error, message, trajectory: checked.value as TrialError["trajectory"] & {} }
  }
  const { trajectory: _, ...rest } = error
  return { ...rest, message: `${message} (its steps are not kept: ${scrubRemembered(describeUnwritable(checked))})` }
}
