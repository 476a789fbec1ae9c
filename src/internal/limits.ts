/**
 * Limits and tuning constants that several folders read: the most epochs a
 * run takes, and the size of the chunks task sources emit.
 *
 * @internal
 */

/**
 * The most epochs (trials per task) a run takes. Each source chunk of 64
 * tasks is expanded into 64 x K trial units at once, and pass@k is computed
 * for k up to K: at 10,000 that is 640,000 units (tens of MB) for a moment,
 * while 1e9 exhausted V8 before the first trial ran.
 *
 * @category validation
 * @since 0.1.0
 */
export const MAX_EPOCHS = 10_000

/**
 * How many tasks a source built here (synthetic tasks, `runTasks`'
 * iterable) makes ahead. `Stream.fromIterable`'s default, 4,096, builds
 * tasks that outlive young-generation collections while they wait to be
 * admitted; 64 keeps them short-lived (measured: less CPU and GC per trial),
 * and is still far above any pull `Stream.mapEffect` makes at once.
 *
 * @internal
 */
export const sourceChunkSize = 64
