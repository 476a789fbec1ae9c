#!/usr/bin/env node
/**
 * The `agent-trials` command: the CLI on Node, with the file system, stdio and
 * an HTTP client for the HTTP and OpenAI agents. `npm start` and
 * `npm run trials` run this file from source (scripts/trials.ts).
 *
 * It is the only module of the package that needs `@effect/platform-node`:
 * the library entries (`agent-trials`, `agent-trials/eager`) do not import it.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { runMain } from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import { runCli, trialsCommand } from "./Cli.ts"

runCli(trialsCommand).pipe(
  Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)),
  runMain
)
