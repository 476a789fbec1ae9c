/**
 * Splits a byte stream into lines, keeping 1-based line numbers and the byte
 * offset where each line ends: the dataset reader names lines in its errors,
 * and resume truncates a torn last line at an exact byte.
 *
 * @internal
 */
import { Stream } from "effect"

/** @internal */
export interface Line {
  readonly text: string
  /** 1-based. */
  readonly number: number
  /** Byte offset just past this line (and its newline, when it has one). */
  readonly end: number
  /** False for a last line with no newline: possibly torn by a crash. */
  readonly terminated: boolean
}

const NEWLINE = 10

/** @internal */
export const splitLines = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Line, E, R> =>
  Stream.suspend(() => {
    const decoder = new TextDecoder()
    let carry: Uint8Array | undefined
    let number = 0
    let offset = 0
    const text = (b: Uint8Array) => {
      const end = b.length > 0 && b[b.length - 1] === 13 ? b.length - 1 : b.length
      return decoder.decode(b.subarray(0, end))
    }
    const body = bytes.pipe(
      Stream.map((chunk) => {
        const out: Array<Line> = []
        let start = 0
        for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
          let piece = chunk.subarray(start, nl)
          if (carry !== undefined) {
            piece = concat(carry, piece)
            carry = undefined
          }
          offset += piece.length + 1
          out.push({ text: text(piece), number: ++number, end: offset, terminated: true })
          start = nl + 1
        }
        if (start < chunk.length) {
          const rest = chunk.subarray(start)
          carry = carry === undefined ? rest.slice() : concat(carry, rest)
        }
        return out
      }),
      Stream.flattenIterable
    )
    const tail = Stream.suspend(() => {
      if (carry === undefined || carry.length === 0) return Stream.empty
      offset += carry.length
      const last: Line = { text: text(carry), number: ++number, end: offset, terminated: false }
      carry = undefined
      return Stream.make(last)
    })
    return Stream.concat(body, tail)
  })

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}
