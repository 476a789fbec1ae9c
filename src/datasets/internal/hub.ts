/**
 * The Hugging Face Hub side of `--tasks hf:OWNER/NAME[@REVISION][?config=C&split=S]`:
 * the commit a revision names, the Parquet files of a config's split, and a
 * cached, resumable download of each. Reading the Parquet is another
 * module's job.
 *
 * The HTTP shapes are those of Hugging Face's own client: `HfApi.dataset_info`
 * in huggingface_hub/hf_api.py (the info document, the revision
 * percent-encoded whole, so `refs/convert/parquet` is one path segment),
 * `hf_hub_url` in huggingface_hub/file_download.py
 * (`/datasets/{repo}/resolve/{revision}/{path}`, path segments quoted) and
 * `HF_ENDPOINT` in huggingface_hub/constants.py (the endpoint override,
 * trailing slashes dropped).
 *
 * @internal
 */
import { Effect, FileSystem, Path, Redacted, Stream } from "effect"
import { HttpClient } from "effect/http"
import * as NodePath from "node:path"
import { preview } from "../../domain/internal/post.ts"
import { formatBytes } from "../../internal/byteSize.ts"
import { keySecrets, redactUrl, scrubber } from "../../internal/redact.ts"
import * as Redactor from "../../runner/Redactor.ts"
import type { DatasetError } from "../Source.ts"
import { download, type HubFile } from "./download.ts"
import {
  type Context,
  DEFAULT_MAX_DOWNLOAD,
  DEFAULT_MAX_INFO,
  DEFAULT_TIMEOUT_MS,
  describe,
  fail,
  type Flow,
  received,
  send,
  statusError,
  watch
} from "./transfer.ts"

export type { HubFile } from "./download.ts"

/** @internal */
export interface HubRef {
  /** `owner/name`. */
  readonly repo: string
  readonly revision: string | undefined
  readonly config: string | undefined
  readonly split: string | undefined
}

/** @internal */
export interface HubOptions {
  /** `https://huggingface.co` unless `HF_ENDPOINT` says otherwise (a mirror, a local Hub). */
  readonly endpoint: string
  /** `HF_TOKEN`: sent as a bearer token, never shown. */
  readonly token: Redacted.Redacted<string> | undefined
  readonly cacheDir: string
  /** `--hub-timeout` in ms: the longest wait for an answer's headers, or for a byte of its body (60 s by default). */
  readonly timeoutMs?: number | undefined
  /** `--max-download` in bytes: the most a file without a declared size may be (10 GB by default). */
  readonly maxDownload?: number | undefined
  /** The bytes a dataset info answer may have, read into memory (64 MB by default). */
  readonly maxInfo?: number | undefined
}

/** @internal */
export interface Resolved {
  readonly repo: string
  /** The revision asked for, `main` by default. */
  readonly requested: string
  /** The commit actually read: a record pins the data, not a branch that moves. */
  readonly revision: string
  readonly config: string
  readonly split: string
  /** In path order, which is shard order for the layouts the Hub writes. */
  readonly files: ReadonlyArray<HubFile>
}

const USAGE = "expected hf:OWNER/NAME[@REVISION][?config=C&split=S]"
// `validate_repo_id` (huggingface_hub/utils/_validators.py): word characters, `-`
// and `.`, not at either end, no `--` or `..`; so no `.` or `..` folder in the cache either.
const REPO_PART = /^(?!.*(?:--|\.\.))\w(?:[\w.-]*\w)?$/
// A split is a word or dotted words (`train`, `test.clean`): never the `-` or
// `/` the layouts put around it, so a file name parses one way.
const SPLIT = /^\w+(?:\.\w+)*$/
// A config is a folder name: no `/`, and no glob or query characters.
const CONFIG = /^(?!\.{1,2}$)[^\s/?&=#*{}%]+$/
const CONVERTED = "refs/convert/parquet"

/** `--tasks hf:...`: chosen by its prefix. @internal */
export const isSpec = (text: string): boolean => text.startsWith("hf:")

/** The reference a spec names, or a message saying what is wrong with it. @internal */
export const parseSpec = (text: string): HubRef | string => {
  const bad = (why?: string) => `--tasks ${text}: ${why === undefined ? USAGE : `${why}; ${USAGE}`}`
  if (!isSpec(text)) return bad()
  const body = text.slice("hf:".length)
  const mark = body.indexOf("?")
  const head = mark === -1 ? body : body.slice(0, mark)
  const at = head.indexOf("@")
  const repo = at === -1 ? head : head.slice(0, at)
  const parts = repo.split("/")
  if (parts.length !== 2 || !parts.every((part) => REPO_PART.test(part))) return bad()
  // A revision may hold `/` (`refs/pr/1`): only the first `@` splits.
  const revision = at === -1 ? undefined : head.slice(at + 1)
  if (revision !== undefined && !/^[^\s#]+$/.test(revision)) return bad("an empty revision after @")
  const query: Record<string, string> = {}
  const unknown: Array<string> = []
  for (const part of mark === -1 ? [] : body.slice(mark + 1).split("&")) {
    const eq = part.indexOf("=")
    const key = eq === -1 ? part : part.slice(0, eq)
    if (key !== "config" && key !== "split") {
      unknown.push(JSON.stringify(key))
      continue
    }
    if (Object.hasOwn(query, key)) return bad(`${key} given twice`)
    // Not percent-decoded: a config or split name needs no escape, and the checks below refuse one.
    query[key] = eq === -1 ? "" : part.slice(eq + 1)
  }
  if (unknown.length > 0) return bad(`unknown query key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (only config and split)`)
  const { config, split } = query
  if (config !== undefined && !CONFIG.test(config)) return bad(`config ${JSON.stringify(config)} is not a config name`)
  if (split !== undefined && !SPLIT.test(split)) return bad(`split ${JSON.stringify(split)} is not a split name (word or dotted words)`)
  return { repo, revision, config, split }
}

/**
 * `$XDG_CACHE_HOME/agent-trials`, else `HOME/.cache/agent-trials`. A relative
 * `XDG_CACHE_HOME` is ignored, as the XDG spec says: it would put the cache
 * wherever the run happens to start.
 *
 * @internal
 */
export const defaultCacheDir = (env: Record<string, string | undefined>, home: string): string => {
  const xdg = env["XDG_CACHE_HOME"]
  return xdg !== undefined && NodePath.isAbsolute(xdg)
    ? NodePath.join(xdg, "agent-trials")
    : NodePath.join(home, ".cache", "agent-trials")
}

/**
 * The options as huggingface_hub reads them: `HF_ENDPOINT` without its
 * trailing slashes, `HF_TOKEN` trimmed (a token pasted with its newline
 * still works) and none when empty.
 *
 * @internal
 */
export const optionsFromEnv = (env: Record<string, string | undefined>, home: string): HubOptions => {
  const token = env["HF_TOKEN"]?.trim() ?? ""
  return {
    endpoint: (env["HF_ENDPOINT"]?.trim() || "https://huggingface.co").replace(/\/+$/, ""),
    token: token === "" ? undefined : Redacted.make(token),
    cacheDir: defaultCacheDir(env, home)
  }
}

// Where a split's Parquet files lie, `{split}` the split, `*` any name within one folder.
// As `datasets.push_to_hub` writes them (and repos laid out by hand):
const DEFAULT_LAYOUTS = [
  "data/{split}-*.parquet", "data/{split}/*.parquet", "data/{split}.parquet", "{split}-*.parquet", "{split}.parquet",
  "default/{split}/*.parquet", "default/{split}-*.parquet"
]
// A named config's folder; also the Hub's parquet converter's layout
// (`{config}/{split}/0000.parquet` now, `{config}/{name}-{split}[-NNNNN-of-NNNNN].parquet` before).
const configLayouts = (config: string): Array<string> =>
  ["{split}/*.parquet", "{split}-*.parquet", "*-{split}-*.parquet", "*-{split}.parquet"].map((l) => `${config}/${l}`)

const layoutsFor = (revision: string, config: string | undefined): Array<string> =>
  revision === CONVERTED ? configLayouts(config ?? "default")
  : config === undefined || config === "default" ? [...DEFAULT_LAYOUTS, ...configLayouts("default")]
  : configLayouts(config)

// `split` undefined: captured. `strict`: a `*` right after `{split}-` must be
// a shard number (`train-00000-of-00002`), so `name-train.parquet` is not
// read as split `name` while looking for the splits a repo has.
const compile = (layout: string, split: string | undefined, strict = false): RegExp => {
  const tokens = layout.split(/(\{split\}|\*)/)
  const source = tokens.map((token, i) =>
    token === "{split}" ? (split === undefined ? String.raw`(\w+(?:\.\w+)*)` : escape(split))
    : token !== "*" ? escape(token)
    : strict && tokens[i - 1] === "-" && tokens[i - 2] === "{split}" ? String.raw`\d+-of-\d+[^/]*`
    : "[^/]*"
  ).join("")
  return new RegExp(`^${source}$`)
}

const escape = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

// Each file names one split: the first layout that fits it strictly, else loosely.
const splitsOf = (paths: ReadonlyArray<string>, layouts: ReadonlyArray<string>): Array<string> => {
  const strict = layouts.map((l) => compile(l, undefined, true))
  const loose = layouts.map((l) => compile(l, undefined))
  const found = new Set<string>()
  for (const path of paths) {
    const match = strict.map((r) => r.exec(path)).find((m) => m !== null) ?? loose.map((r) => r.exec(path)).find((m) => m !== null)
    if (match) found.add(match[1]!)
  }
  return [...found].sort()
}

const configsOf = (paths: ReadonlyArray<string>): Array<string> => {
  const defaults = DEFAULT_LAYOUTS.map((l) => compile(l, undefined))
  const found = new Set<string>()
  for (const path of paths) {
    if (defaults.some((r) => r.test(path))) found.add("default")
    else if (path.includes("/")) found.add(path.slice(0, path.indexOf("/")))
  }
  return [...found].sort()
}

type Selection =
  | { readonly _tag: "Files"; readonly split: string; readonly files: ReadonlyArray<string> }
  | { readonly _tag: "None"; readonly found: string; readonly splits: ReadonlyArray<string> }
  | { readonly _tag: "Ambiguous"; readonly splits: ReadonlyArray<string> }

const select = (siblings: ReadonlyArray<string>, revision: string, ref: HubRef): Selection => {
  const paths = siblings.filter((p) => p.endsWith(".parquet"))
  const layouts = layoutsFor(revision, ref.config)
  const splits = splitsOf(paths, layouts)
  const split = ref.split ?? (splits.includes("train") ? "train" : splits.length === 1 ? splits[0] : undefined)
  if (split === undefined && splits.length > 1) return { _tag: "Ambiguous", splits }
  const patterns = split === undefined ? [] : layouts.map((l) => compile(l, split))
  const files = paths.filter((p) => patterns.some((r) => r.test(p))).sort()
  if (split !== undefined && files.length > 0) return { _tag: "Files", split, files }
  const found = `configs ${configsOf(paths).join(", ") || "(none)"}; splits of "${ref.config ?? "default"}": ${splits.join(", ") || "(none)"}`
  return { _tag: "None", found: paths.length === 0 ? "no Parquet files" : found, splits }
}

/**
 * The commit `ref` names, the Parquet files of its config and split there
 * (or, for a `main` that holds none, in the Hub's own Parquet conversion),
 * each downloaded to the cache. Files already there are not fetched again;
 * a `.part` left by a download that stopped is resumed.
 *
 * @internal
 */
export const resolve = (
  spec: string,
  ref: HubRef,
  options: HubOptions
): Effect.Effect<Resolved, DatasetError, HttpClient.HttpClient | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const token = options.token === undefined ? "" : Redacted.value(options.token)
    // And lost from the run's records and last error (`Redactor`).
    const tokenSecrets = keySecrets(token)
    yield* Redactor.remember(tokenSecrets)
    const base = yield* HttpClient.HttpClient
    const ctx: Context = {
      spec, ref, options, fs: yield* FileSystem.FileSystem, path: yield* Path.Path, base,
      // Scoped, so a response left unread (an error, a restart) is aborted, not leaked;
      // inside the redirects, so each hop is.
      client: base.pipe(HttpClient.withScope, HttpClient.followRedirects(10)),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxDownload: options.maxDownload ?? DEFAULT_MAX_DOWNLOAD,
      maxInfo: options.maxInfo ?? DEFAULT_MAX_INFO,
      // Also remembered for the trace exporter: a span quoting a header or body cannot carry the token.
      scrub: scrubber(tokenSecrets),
      sent: token !== ""
    }
    const requested = ref.revision ?? "main"
    const info = yield* fetchInfo(ctx, requested)
    let revision = info.sha
    let selection = select(info.siblings, requested, ref)
    const seen = selection._tag === "None" ? [`at ${requested}: ${selection.found}`] : []
    // Only for a config main holds no Parquet of (CSV, JSON): the converter reads main alone, so
    // for another revision its files would be other data.
    const convert = selection._tag === "None" && selection.splits.length === 0 && requested === "main"
    const converted = convert ? yield* fetchInfo(ctx, CONVERTED, true) : undefined
    if (converted !== undefined) {
      revision = converted.sha
      selection = select(converted.siblings, CONVERTED, ref)
      if (selection._tag === "None") seen.push(`in its Parquet conversion (${CONVERTED}): ${selection.found}`)
    } else if (convert) seen.push(`no Parquet conversion (${CONVERTED})`)
    if (selection._tag === "Ambiguous") {
      return yield* fail(ctx, `no split asked and none is named train: add ?split= with one of ${selection.splits.join(", ")}`)
    }
    if (selection._tag === "None") {
      const split = ref.split === undefined ? "any split" : `split "${ref.split}"`
      return yield* fail(ctx, `dataset ${ref.repo} has no Parquet files of config "${ref.config ?? "default"}", ${split} (${seen.join("; ")})`)
    }
    const { files, split } = selection
    // One after the other: a shard is read in order, and one slow CDN hop should not hold many sockets.
    const downloaded = yield* Effect.forEach(files, (file) => download(ctx, revision, file))
    return { repo: ref.repo, requested, revision, config: ref.config ?? "default", split, files: downloaded }
  })

interface Info {
  readonly sha: string
  readonly siblings: ReadonlyArray<string>
}

// `optional`: a 404 is no such branch, not an error (the conversion may not exist yet).
function fetchInfo(ctx: Context, revision: string, optional: true): Effect.Effect<Info | undefined, DatasetError>
function fetchInfo(ctx: Context, revision: string): Effect.Effect<Info, DatasetError>
function fetchInfo(ctx: Context, revision: string, optional = false): Effect.Effect<Info | undefined, DatasetError> {
  const url = `${ctx.options.endpoint}/api/datasets/${ctx.ref.repo}/revision/${encodeURIComponent(revision)}`
  return Effect.scoped(Effect.gen(function*() {
    const response = yield* send(ctx, url, { accept: "application/json" })
    if (optional && response.status === 404) return undefined
    if (response.status !== 200) {
      return yield* statusError(ctx, response, url, `no such dataset or revision: ${ctx.ref.repo}@${revision}`)
    }
    // Read under the same bounds as a download: an answer that stalls or trickles ends.
    const flow: Flow = { bytes: 0, lastAt: 0 }
    const chunks: Array<Uint8Array> = []
    yield* Effect.raceFirst(
      response.stream.pipe(
        Stream.runForEach((chunk) =>
          // Held in memory to parse: past the cap the answer is not a dataset info, and reading ends.
          flow.bytes + chunk.length > ctx.maxInfo
            ? fail(ctx, `the answer of ${redactUrl(url)} is larger than ${formatBytes(ctx.maxInfo)} (${ctx.maxInfo} bytes), too large for a dataset info: stopped; check HF_ENDPOINT`, true)
            : Effect.andThen(Effect.sync(() => chunks.push(chunk)), received(flow, chunk))
        ),
        Effect.catchTag("HttpClientError", (error) => fail(ctx, `the answer of ${redactUrl(url)} stopped: ${describe(error)}`, true))
      ),
      watch(ctx, url, flow, 0, "answer")
    )
    const text = Buffer.concat(chunks).toString("utf8")
    const body: unknown = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: (error) => error as Error }).pipe(
      Effect.catch((error) => fail(ctx, `the answer of ${redactUrl(url)} is not JSON: ${error.message}`))
    )
    const { sha, siblings } = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
    const names = Array.isArray(siblings) ? siblings.map((s) => (s as { readonly rfilename?: unknown } | null)?.rfilename) : []
    // The sha names a folder of the cache: a commit id, nothing else.
    if (typeof sha !== "string" || !/^[0-9a-f]{40,64}$/.test(sha) || !Array.isArray(siblings) || !names.every((n) => typeof n === "string")) {
      return yield* fail(ctx, `the answer of ${redactUrl(url)} is not a dataset info ({ sha, siblings: [{ rfilename }] }): ${
        preview(JSON.stringify(body) ?? "")
      }`)
    }
    return { sha, siblings: names as Array<string> }
  }))
}

