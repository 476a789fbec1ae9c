/**
 * An error message as the summary quotes it under "failures by type": one
 * line, scrubbed of secrets, clipped.
 *
 * @internal
 */
import { CONTROLS, mark } from "../../internal/htmlText.ts"
import { redactText } from "../../internal/redact.ts"

/**
 * Code points of a message the summary keeps: enough for what an error says
 * and where (a file, a line, a field), short enough for a terminal line.
 *
 * @internal
 */
export const MESSAGE_CHARS = 200

const HEAD = 65_536

/**
 * `message` scrubbed (its URLs redacted and every secret this process knows
 * removed, as a trace carries text), on one line (controls and bidi marks as
 * `<U+202E>`, runs of white space as one space), and clipped to
 * {@link MESSAGE_CHARS} code points with `...`. Scrubbed before it is clipped,
 * so a secret cut in two cannot slip through.
 *
 * **Example** (A long message with a newline)
 *
 * ```ts
 * import { firstMessage } from "./firstMessage.ts"
 *
 * firstMessage("bad\nline") // "bad line"
 * ```
 *
 * @internal
 */
export const firstMessage = (message: string): string => {
  // A message of megabytes is cut to its head before any other work.
  const head = message.length > HEAD ? message.slice(0, HEAD) : message
  const line = redactText(head).replace(/\s+/g, " ").trim().replace(CONTROLS, mark)
  const chars = Array.from(line)
  return chars.length > MESSAGE_CHARS ? `${chars.slice(0, MESSAGE_CHARS).join("")}...` : line
}
