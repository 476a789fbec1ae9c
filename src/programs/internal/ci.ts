/**
 * What the outputs CI reads share: the scrub of every text from outside
 * (the command's secrets, then every secret this process knows), and the
 * job summary GitHub Actions shows (`GITHUB_STEP_SUMMARY`), appended to.
 *
 * @internal
 */
import { Config, Console, Effect, FileSystem, Option } from "effect"
import { osError } from "../../internal/atomicFile.ts"
import { redactText } from "../../internal/redact.ts"
import { Redactor } from "../../runner/Redactor.ts"

/**
 * The scrub of texts an output writes: the command's `Redactor` (its
 * `OPENAI_API_KEY`, its URLs' credentials, what its agents sent), then
 * `redactText`.
 *
 * @internal
 */
export const scrubber: Effect.Effect<(text: string) => string> = Effect.map(
  Effect.serviceOption(Redactor),
  (redactor) => (text: string) => redactText(Option.isSome(redactor) ? redactor.value.scrub(text) : text)
)

/** How long appending to the step summary may take. */
export const STEP_SUMMARY_TIMEOUT = "10 seconds"

/**
 * Appends `markdown` to the file `GITHUB_STEP_SUMMARY` names, when it is
 * set: never truncating it, so each step's summary stays. A file that
 * cannot be written (or a write that takes longer than
 * `STEP_SUMMARY_TIMEOUT`) is a warning on stderr naming the variable, never
 * a failure of the command.
 *
 * @internal
 */
export const appendStepSummary = (markdown: string): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const file = yield* Config.option(Config.String("GITHUB_STEP_SUMMARY")).pipe(Effect.orElseSucceed(() => Option.none<string>()))
    if (Option.isNone(file) || file.value === "") return
    const path = file.value
    const fs = yield* FileSystem.FileSystem
    yield* fs.writeFileString(path, markdown + "\n", { flag: "a" }).pipe(
      Effect.timeoutOrElse({
        duration: STEP_SUMMARY_TIMEOUT,
        orElse: () => Effect.fail({ message: `no answer within ${STEP_SUMMARY_TIMEOUT}` })
      }),
      Effect.catch((e: { readonly message: string; readonly reason?: unknown }) =>
        Console.error(`agent-trials: warning: cannot append the summary to GITHUB_STEP_SUMMARY ${path}: ${osError(e)}`)
      )
    )
  })
