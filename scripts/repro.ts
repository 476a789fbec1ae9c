/**
 * `npm run repro`: the counterpart of the original run.py. Logic in src/.
 */
import { runMain } from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import { reproCommand, runCli } from "../src/cli/Cli.ts"

runCli(reproCommand).pipe(Effect.provide(NodeServices.layer), runMain)
