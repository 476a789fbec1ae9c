/**
 * `npm run trials -- <command> [flags]`: the `agent-trials` bin, run from source.
 */
import "../src/bin.ts"
