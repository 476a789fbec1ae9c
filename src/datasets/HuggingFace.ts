/**
 * The `hf:` dataset source: `--tasks hf:OWNER/NAME[@REVISION][?config=C&split=S]`
 * reads a Hugging Face Hub dataset through the Hub's own HTTP API: the
 * revision resolved to its commit, the Parquet files of the config's split
 * (the dataset's own, else the Hub's Parquet conversion) downloaded once
 * into `--cache-dir` (resumable), then read as Parquet, file by file and
 * row group by row group. `HF_TOKEN` is sent when set and redacted
 * everywhere; `HF_ENDPOINT` overrides the Hub's URL, as Hugging Face's own
 * clients do. The commit read is told to `onSource` before the first task:
 * the run puts it in its summary and on every record.
 *
 * @since 0.3.0
 */
import { Config, Duration, Effect, Option, Path, Stream } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as os from "node:os"
import * as Hub from "./internal/hub.ts"
import * as Parquet from "./Parquet.ts"
import * as Rows from "./Rows.ts"
import { DatasetError, type DatasetFormat, type Item, type ReadOptions, type Services } from "./Source.ts"

const envVar = (name: string) =>
  Config.String(name).pipe(Config.option, Effect.map(Option.getOrUndefined), Effect.orElseSucceed(() => undefined))

/** The Hub's options from the environment (`HF_ENDPOINT`, `HF_TOKEN`, `XDG_CACHE_HOME`), `--cache-dir`, `--hub-timeout` and `--max-download`. */
const hubOptions = (read: ReadOptions) =>
  Effect.gen(function*() {
    const env = {
      HF_ENDPOINT: yield* envVar("HF_ENDPOINT"),
      HF_TOKEN: yield* envVar("HF_TOKEN"),
      XDG_CACHE_HOME: yield* envVar("XDG_CACHE_HOME")
    }
    const options = Hub.optionsFromEnv(env, os.homedir())
    return {
      ...options,
      cacheDir: read.cacheDir ?? options.cacheDir,
      timeoutMs: read.hubTimeout === undefined ? undefined : Duration.toMillis(read.hubTimeout),
      maxDownload: read.maxDownload
    }
  })

/**
 * The tasks of a Hub dataset's split. Uses the `HttpClient` in context when
 * there is one, else `fetch`.
 *
 * @category sources
 * @since 0.3.0
 */
export const fromHub = (spec: string, options: ReadOptions): Stream.Stream<Item, DatasetError, Services> =>
  Stream.unwrap(Effect.gen(function*() {
    const ref = Hub.parseSpec(spec)
    if (typeof ref === "string") return yield* new DatasetError({ path: spec, message: ref })
    const client = yield* Effect.serviceOption(HttpClient.HttpClient)
    const resolved = yield* Hub.resolve(spec, ref, yield* hubOptions(options)).pipe(
      client._tag === "Some" ? Effect.provideService(HttpClient.HttpClient, client.value) : Effect.provide(FetchHttpClient.layer),
      Effect.provide(Path.layer)
    )
    options.onSource?.({ revision: resolved.revision, files: resolved.files.map((f) => f.path) })
    const where = `split ${resolved.split}`
    // The first file's schema is the table's: the mapping is checked against it.
    let columns: ReadonlyArray<string> = []
    const rows = Stream.fromIterable(resolved.files).pipe(
      Stream.flatMap((file) =>
        Stream.unwrap(Effect.map(
          Parquet.open(file.local, `${spec}: ${where}, file ${file.path}`).pipe(
            // The cache holds only whole downloads, so a copy that cannot be read was damaged there.
            Effect.mapError((e) =>
              new DatasetError({ ...e, message: `${e.message}; the cached copy is ${file.local}: delete it and run again to download it anew` })
            )
          ),
          (parquet) => {
          if (columns.length === 0) columns = parquet.columns
            return Parquet.rowsOf(parquet, spec, `${where}, file ${file.path}, `)
          }
        ))
      )
    )
    return Rows.toItems(spec, rows, { ...options, columns: () => columns })
  }))

/**
 * `hf`: the dataset source.
 *
 * @category formats
 * @since 0.3.0
 */
export const format: DatasetFormat = {
  name: "hf",
  extensions: [],
  prefix: "hf:",
  doc:
    "A Hugging Face Hub dataset, `hf:OWNER/NAME[@REVISION][?config=C&split=S]`: its Parquet files for the split, downloaded to `--cache-dir` (resumable) and read as `parquet`",
  read: fromHub
}
