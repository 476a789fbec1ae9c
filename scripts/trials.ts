/**
 * `npm run trials -- <command> [flags]`. Logic in src/.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { runMain } from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import { runCli, trialsCommand } from "../src/Cli.ts"

runCli(trialsCommand).pipe(
  Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)),
  runMain
)
