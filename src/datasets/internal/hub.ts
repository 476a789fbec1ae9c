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
import { Effect, FileSystem, Path, type PlatformError, Redacted, type Scope, Stream } from "effect"
import { HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse } from "effect/http"
import * as NodePath from "node:path"
import { preview } from "../../domain/internal/post.ts"
import { keySecrets, redactUrl, scrubber } from "../../internal/redact.ts"
import { DatasetError } from "../Source.ts"

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
}

/** @internal */
export interface HubFile {
  /** Where it is in the repository. */
  readonly path: string
  /** The absolute path of the complete downloaded file. */
  readonly local: string
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

interface Context {
  readonly spec: string
  readonly ref: HubRef
  readonly options: HubOptions
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly client: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>
  readonly scrub: (text: string) => string
  /** Whether a token goes with each request: it changes what a 401 or 403 means. */
  readonly sent: boolean
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
    const ctx: Context = {
      spec, ref, options, fs: yield* FileSystem.FileSystem, path: yield* Path.Path,
      // Scoped, so a response left unread (an error, a restart) is aborted, not leaked;
      // inside the redirects, so each hop is.
      client: (yield* HttpClient.HttpClient).pipe(HttpClient.withScope, HttpClient.followRedirects(10)),
      // Also remembered for the trace exporter: a span quoting a header or body cannot carry the token.
      scrub: scrubber(keySecrets(token)),
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

const fail = (ctx: Context, message: string) =>
  Effect.fail(new DatasetError({ path: ctx.spec, message: `${ctx.spec}: ${ctx.scrub(message)}` }))

const send = (ctx: Context, url: string, headers: Record<string, string>) => {
  let request = HttpClientRequest.get(url, { headers })
  if (ctx.sent) request = HttpClientRequest.bearerToken(request, ctx.options.token!)
  return ctx.client.execute(request).pipe(Effect.catch((error) => fail(ctx, `cannot reach ${redactUrl(url)}: ${describe(error)}`)))
}

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
    const body: unknown = yield* response.json.pipe(
      Effect.catch((error) => fail(ctx, `the answer of ${redactUrl(url)} is not JSON: ${describe(error)}`))
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

const statusError = (ctx: Context, response: HttpClientResponse.HttpClientResponse, url: string, missing: string) =>
  Effect.gen(function*() {
    const { status } = response
    const repo = ctx.ref.repo
    if (status === 401 || status === 403) {
      return yield* fail(ctx, ctx.sent
        ? `the token in HF_TOKEN has no access to dataset ${repo} (HTTP ${status}): it is gated or private; accept its conditions on the Hub with the token's account, or set HF_TOKEN to a token that has access`
        : `dataset ${repo} is gated or private (HTTP ${status}; or it does not exist): set HF_TOKEN to a token with access to it`)
    }
    if (status === 404) return yield* fail(ctx, `${missing} (HTTP 404 from ${redactUrl(url)})`)
    const body = ctx.scrub(yield* Effect.orElseSucceed(response.text, () => ""))
    return yield* fail(ctx, `HTTP ${status} from ${redactUrl(url)}: ${body.trim() === "" ? "(empty body)" : preview(body)}`)
  })

const download = (ctx: Context, sha: string, file: string): Effect.Effect<HubFile, DatasetError> =>
  Effect.gen(function*() {
    const { fs, path } = ctx
    // Paths matched by the layouts have no `..` segment: the config and split cannot be one, `*` stays in its folder.
    const local = path.resolve(ctx.options.cacheDir, "hf", ...ctx.ref.repo.split("/"), sha, ...file.split("/"))
    // Only a complete file ever gets this name.
    if (yield* fs.exists(local)) return { path: file, local }
    yield* fs.makeDirectory(path.dirname(local), { recursive: true })
    const url = `${ctx.options.endpoint}/datasets/${ctx.ref.repo}/resolve/${sha}/${file.split("/").map(encodeURIComponent).join("/")}`
    yield* fetchTo(ctx, url, local, false, `no file ${file} in dataset ${ctx.ref.repo} at ${sha}`)
    return { path: file, local }
  }).pipe(Effect.catchTag("PlatformError", (error) => fail(ctx, `cannot write the cache for ${file}: ${error.message}`)))

// `missing`: what a 404 means here. `restarted`: the .part was given up once already.
const fetchTo = (ctx: Context, url: string, local: string, restarted: boolean, missing: string): Effect.Effect<void, DatasetError | PlatformError.PlatformError> =>
  Effect.scoped(Effect.gen(function*() {
    const { fs } = ctx
    const part = `${local}.part`
    const have = (yield* fs.exists(part)) ? Number((yield* fs.stat(part)).size) : 0
    // identity: Content-Length and Range count the bytes of the file, not of a compressed body.
    const headers: Record<string, string> = { "accept-encoding": "identity" }
    if (have > 0) headers["range"] = `bytes=${have}-`
    const response = yield* send(ctx, url, headers)
    const range = /^bytes (?:(\d+)-\d+|\*)\/(\d+)$/.exec(response.headers["content-range"] ?? "")
    const startOver = Effect.andThen(fs.remove(part, { force: true }), fetchTo(ctx, url, local, true, missing))
    let expected: number | undefined
    if (response.status === 416 && have > 0) {
      // Nothing past the end: a .part already whole (stopped before its rename), else not this file's.
      if (range !== null && Number(range[2]) === have) return yield* fs.rename(part, local)
      if (!restarted) return yield* startOver
    }
    if (response.status === 206 && have > 0 && range !== null && Number(range[1]) === have) expected = Number(range[2])
    else if (response.status === 206 && !restarted) return yield* startOver
    else if (response.status === 200) {
      // A server that ignores Range sends the whole file: keep none of the old bytes.
      const length = response.headers["content-length"]
      expected = length === undefined ? undefined : Number(length)
    } else return yield* statusError(ctx, response, url, missing)
    yield* response.stream.pipe(
      Stream.run(fs.sink(part, { flag: response.status === 206 ? "a" : "w" })),
      Effect.catchTag("HttpClientError", (error) =>
        fail(ctx, `download from ${redactUrl(url)} stopped (${describe(error)}): run again to resume it`))
    )
    const size = Number((yield* fs.stat(part)).size)
    if (expected !== undefined && size !== expected) {
      if (size > expected) yield* fs.remove(part, { force: true })
      return yield* fail(ctx, `download from ${redactUrl(url)} has ${size} of ${expected} bytes${
        size > expected ? " (too many: removed)" : ": run again to resume it"
      }`)
    }
    yield* fs.rename(part, local)
  }))

// undici wraps the useful words (ECONNREFUSED, "other side closed") in causes.
const describe = (error: HttpClientError.HttpClientError): string => {
  const parts: Array<string> = []
  let current: unknown = error.reason.cause
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { readonly code?: unknown }).code
    const text = current.message || current.name
    parts.push(typeof code === "string" && !text.includes(code) ? `${text} (${code})` : text)
    current = current.cause
  }
  return preview(parts.join(": ") || error.reason._tag)
}
