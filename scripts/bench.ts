/**
 * `npm run bench`: each approach in its own child process. Logic in scripts/bench/.
 */
import { main } from "./bench/main.ts"

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error))
  process.exitCode = 1
})
