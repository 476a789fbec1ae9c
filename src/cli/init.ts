/**
 * The `init` command.
 *
 * @since 0.8.0
 */
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as Init from "../programs/config/Init.ts"
import { exitFor, reportErrors } from "./errors.ts"
import { switchFlag } from "./flags.ts"

/**
 * `init [--force]`: writes a commented `agent-trials.yaml` here that runs as
 * written; exit 2 when one exists, unless `--force`.
 *
 * @category commands
 * @since 0.8.0
 */
export const initCommand = Command.make(
  "init",
  { force: switchFlag("force", "Overwrite an agent-trials.yaml that exists") },
  Effect.fn("Cli.init")(function*(flags) {
    yield* Init.init({ cwd: process.cwd(), force: flags.force }).pipe(
      Effect.mapError((e) => exitFor(e as { readonly message: string }))
    )
  }, reportErrors)
).pipe(Command.withDescription(
  "Write a commented agent-trials.yaml here that runs as written (the simulated agent, generated tasks, exact scoring)"
))
