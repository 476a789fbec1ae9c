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
import { Context, Effect, Exit, Schema, Stream } from "effect"

/**
 * V8's longest string (2^29 - 24 UTF-16 units on 64-bit): a line with more
 * bytes cannot be decoded to one string, and every reader needs it whole.
 *
 * @internal
 */
export const V8_MAX_STRING_LENGTH = 2 ** 29 - 24

/**
 * The most bytes a line may have, its newline not counted: V8's string
 * limit, so a longer line is refused by name (`FILE:LINE: line longer than
 * 512 MB`) before it is held whole, instead of a RangeError from the
 * decoder. Provide a smaller value to test that path without 512 MB.
 *
 * @internal
 */
export const MaxLineBytes = Context.Reference<number>("agent-trials/internal/lines/MaxLineBytes", {
  defaultValue: () => V8_MAX_STRING_LENGTH
})

/**
 * A line with more bytes than `MaxLineBytes`: the stream fails as soon as
 * its pending bytes pass the limit, holding no more than that.
 *
 * @internal
 */
export class LineTooLong extends Schema.TaggedError<LineTooLong>()("LineTooLong", {
  /** 1-based. */
  line: Schema.Number,
  limit: Schema.Number
}) {
  override get message(): string {
    return `line longer than ${bytesText(this.limit)}`
  }
}

// 536870888 bytes is "512 MB" (MiB, as a user counts a file); a small test limit is exact.
const bytesText = (n: number): string => (n >= 2 ** 20 ? `${Math.round(n / 2 ** 20)} MB` : `${n} bytes`)

/**
 * A reader's message for a failure of its line stream: `FILE:LINE: line
 * longer than 512 MB`, or `cannot read FILE: ...` for the source's own error.
 *
 * @internal
 */
export const readError = (name: string, error: { readonly message: string }): string =>
  error instanceof LineTooLong ? `${name}:${error.line}: ${error.message}` : `cannot read ${name}: ${error.message}`

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

/**
 * The lines of `bytes`, each at most `MaxLineBytes` long (else `LineTooLong`).
 *
 * @internal
 */
export const splitLines = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  count?: CopyCount
): Stream.Stream<Line, E | LineTooLong, R> =>
  Stream.unwrap(Effect.map(Effect.service(MaxLineBytes), (limit) => splitWithin(bytes, limit, count)))

const splitWithin = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  limit: number,
  count: CopyCount | undefined
): Stream.Stream<Line, E | LineTooLong, R> =>
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
    // Checked before a line is joined or a piece carried, so what is held
    // stays within the limit and one chunk. The lines before it are handed
    // on first; the stream fails at the next pull (the next chunk or the end).
    let tooLong: LineTooLong | undefined
    const stop = (out: Array<Line>) => {
      tooLong = new LineTooLong({ line: number + 1, limit })
      carry = []
      carried = 0
      return Exit.succeed(out)
    }
    const body = bytes.pipe(
      Stream.mapEffect((chunk): Exit.Exit<Array<Line>, LineTooLong> => {
        if (tooLong !== undefined) return Exit.fail(tooLong)
        const out: Array<Line> = []
        let start = 0
        for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
          if (carried + nl - start > limit) return stop(out)
          out.push(line(joined(chunk.subarray(start, nl)), true))
          start = nl + 1
        }
        if (start < chunk.length) {
          if (carried + chunk.length - start > limit) return stop(out)
          // Copied: the source may reuse its chunk for the next read.
          const rest = chunk.slice(start)
          if (count !== undefined) count.copied += rest.length
          carry.push(rest)
          carried += rest.length
        }
        return Exit.succeed(out)
      }),
      Stream.flattenIterable
    )
    const tail = Stream.suspend(() => {
      if (tooLong !== undefined) return Stream.fail(tooLong)
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
