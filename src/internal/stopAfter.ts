/**
 * The elements of a stream up to and including the first that `stopBy`
 * answers with an error; then the stream fails with that error. What stops
 * a run on a budget reached or a tool server gone: the element that
 * decided it is kept (a recorded trial), nothing after it is pulled.
 *
 * @internal
 */
import { Stream } from "effect"

/** @internal */
export const stopAfter = <A, E, R, S>(
  stream: Stream.Stream<A, E, R>,
  stopBy: (a: A) => S | undefined
): Stream.Stream<A, E | S, R> =>
  Stream.suspend(() => {
    let stop: S | undefined
    return stream.pipe(
      Stream.takeUntil((a) => (stop = stopBy(a)) !== undefined),
      Stream.concat(Stream.suspend(() => stop === undefined ? Stream.empty : Stream.fail(stop)))
    )
  })
