/**
 * A key given twice on `--json-path`'s way to the records: `JSON.parse` would
 * keep the last, a streamed read would give both values' records (or none
 * of one, when it is empty or not an array). Watching the tokens, each
 * object on the path remembers whether it has seen its segment already, so
 * the second occurrence is caught whatever the two values hold, at every
 * level of the path.
 *
 * @internal
 */

/** @streamparser/json's `TokenType` numbers (its enum is not loaded until a JSON file is read). */
const LEFT_BRACE = 0
const RIGHT_BRACE = 1
const LEFT_BRACKET = 2
const RIGHT_BRACKET = 3
const COMMA = 5
const STRING = 9

/** A key given twice: the segment, the path above it and the byte it starts at. */
export interface Twice {
  readonly key: string
  readonly under: string
  readonly offset: number
}

interface Frame {
  readonly object: boolean
  /** How many segments of the path lead here; -1 off the path. */
  readonly depth: number
  expectKey: boolean
  seen: boolean
  /** The value after the current key is the path's next object. */
  next: boolean
}

/**
 * A token watcher for `segments` (`"a.b"` split): give it each token and it
 * returns the first key given twice on the path, once, or undefined.
 *
 * @example
 * const watch = watcher(["data"])
 * tokenizer.onToken = ({ token, value, offset }) => watch(token, value, offset)
 */
export const watcher = (segments: ReadonlyArray<string>) => {
  const stack: Array<Frame> = []
  let found = false
  return (token: number, value: unknown, offset: number): Twice | undefined => {
    const top = stack[stack.length - 1]
    switch (token) {
      case LEFT_BRACE:
      case LEFT_BRACKET: {
        // The root is the path's first object; below it only the value of the segment's key is.
        const depth = top === undefined ? 0 : top.object && top.next ? top.depth + 1 : -1
        stack.push({ object: token === LEFT_BRACE, depth: depth < segments.length ? depth : -1, expectKey: true, seen: false, next: false })
        return undefined
      }
      case RIGHT_BRACE:
      case RIGHT_BRACKET:
        stack.pop()
        return undefined
      case COMMA:
        if (top !== undefined && top.object) {
          top.expectKey = true
          top.next = false
        }
        return undefined
      case STRING:
        if (top === undefined || !top.object || !top.expectKey) return undefined
        top.expectKey = false
        if (top.depth < 0 || value !== segments[top.depth]) return undefined
        top.next = true
        if (!top.seen) {
          top.seen = true
          return undefined
        }
        if (found) return undefined
        found = true
        return { key: value as string, under: top.depth === 0 ? "the top level" : segments.slice(0, top.depth).join("."), offset }
      default:
        return undefined
    }
  }
}

/** `FILE: --json-path a.b: the key "b" is given twice in a (at byte 40): keep one`. */
export const twiceMessage = (name: string, jsonPath: string, twice: Twice): string =>
  `${name}: --json-path ${jsonPath}: the key ${JSON.stringify(twice.key)} is given twice ${
    twice.under === "the top level" ? "at the top level" : `in ${twice.under}`
  } (at byte ${twice.offset}): keep one`
