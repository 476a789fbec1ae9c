/**
 * The `agent-trials` command's program: the root command on Node
 * (`runOnNode`). Loaded by the bin (src/cli/bin.ts) once it has checked the
 * Node version.
 *
 * @since 0.1.0
 */
import { trialsCommand } from "./Cli.ts"
import { runOnNode } from "./node.ts"

runOnNode(trialsCommand)
