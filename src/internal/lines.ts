/**
 * Splits a byte stream into lines, keeping 1-based line numbers and the byte
 * offset where each line ends: the dataset reader names lines in its errors,
 * and resume truncates a torn last line at an exact byte.
 *
 * Linear in the length of a line: the pieces of a line that spans chunks
 * are kept in a list and joined once, at its newline (or the end), so each
 * byte is copied at most twice (once out of its chunk, once into the line).
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
  /**
   * Present when the line is not valid UTF-8: the byte offset, from the start
   * of the stream, of the first byte that neither starts nor continues a
   * valid character. `text` is then the lossy decoding (U+FFFD for the bad
   * bytes), for readers that only count lines.
   */
  readonly invalidUtf8?: number
}

/**
 * What a reader says of a line that is not valid UTF-8, after `FILE:LINE: `.
 *
 * @internal
 */
export const notUtf8 = (line: Line): string => `not valid UTF-8 (byte offset ${line.invalidUtf8})`

/**
 * Bytes copied while splitting: what the linearity guarantee bounds (at most
 * twice the bytes of the stream).
 *
 * @internal
 */
export interface CopyCount {
  copied: number
}

const NEWLINE = 10
const CR = 13

/** @internal */
export const splitLines = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  count?: CopyCount
): Stream.Stream<Line, E, R> =>
  Stream.suspend(() => {
    // A BOM at the start of a line is dropped, as the default decoder has
    // always done (`ignoreBOM: false`).
    const decoder = new TextDecoder("utf-8", { fatal: true })
    const lossy = new TextDecoder()
    // The pieces of a line that spans chunks, each copied out of its chunk.
    let carry: Array<Uint8Array> = []
    let carried = 0
    let number = 0
    let offset = 0
    const line = (b: Uint8Array, terminated: boolean): Line => {
      const start = offset
      offset += b.length + (terminated ? 1 : 0)
      const body = b.length > 0 && b[b.length - 1] === CR ? b.subarray(0, b.length - 1) : b
      try {
        return { text: decoder.decode(body), number: ++number, end: offset, terminated }
      } catch {
        return { text: lossy.decode(body), number: ++number, end: offset, terminated, invalidUtf8: start + firstInvalid(body) }
      }
    }
    // The carried pieces and then `last`, as one array: one copy of each byte.
    const joined = (last: Uint8Array): Uint8Array => {
      if (carry.length === 0) return last
      if (carry.length === 1 && last.length === 0) {
        const only = carry[0]
        carry = []
        carried = 0
        return only
      }
      const out = new Uint8Array(carried + last.length)
      let at = 0
      for (const piece of carry) {
        out.set(piece, at)
        at += piece.length
      }
      out.set(last, at)
      if (count !== undefined) count.copied += out.length
      carry = []
      carried = 0
      return out
    }
    const body = bytes.pipe(
      Stream.map((chunk) => {
        const out: Array<Line> = []
        let start = 0
        for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
          out.push(line(joined(chunk.subarray(start, nl)), true))
          start = nl + 1
        }
        if (start < chunk.length) {
          // Copied: the source may reuse its chunk for the next read.
          const rest = chunk.slice(start)
          if (count !== undefined) count.copied += rest.length
          carry.push(rest)
          carried += rest.length
        }
        return out
      }),
      Stream.flattenIterable
    )
    const tail = Stream.suspend(() => {
      if (carried === 0) return Stream.empty
      return Stream.make(line(joined(new Uint8Array(0)), false))
    })
    return Stream.concat(body, tail)
  })

/**
 * The index of the first byte of `b` that neither starts nor continues a
 * well-formed UTF-8 sequence (Unicode's table 3-7: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or -1 when `b` is valid. A sequence
 * cut short is reported at its first byte.
 *
 * @internal
 */
export const firstInvalid = (b: Uint8Array): number => {
  let i = 0
  while (i < b.length) {
    const lead = b[i]
    if (lead < 0x80) {
      i++
      continue
    }
    let need: number
    let low = 0x80
    let high = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) need = 1
    else if (lead >= 0xe0 && lead <= 0xef) {
      need = 2
      if (lead === 0xe0) low = 0xa0
      else if (lead === 0xed) high = 0x9f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      need = 3
      if (lead === 0xf0) low = 0x90
      else if (lead === 0xf4) high = 0x8f
    } else return i
    for (let j = 1; j <= need; j++) {
      const next = b[i + j]
      if (next === undefined || next < low || next > high) return i
      low = 0x80
      high = 0xbf
    }
    i += need + 1
  }
  return -1
}
