/**
 * The Hugging Face Hub part of `--tasks hf:...` against a fake Hub on
 * 127.0.0.1 (test/fixtures/hub-server.ts), through the real undici client
 * and the real file system: the spec's forms, which Parquet files a config
 * and split are, the sha read, the fall back to the Hub's Parquet
 * conversion, gated repositories and the token, the cache, and resuming a
 * download that stopped.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatasetError } from "../src/datasets/Source.ts"
import * as Hub from "../src/datasets/internal/hub.ts"
import { closedPort } from "./http-server.ts"
import { bytes, content, type FakeDataset, serveHub, sha } from "./fixtures/hub-server.ts"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})
const cacheDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-hf-"))
  dirs.push(dir)
  return dir
}

const TOKEN = "hf_fakeToken0123456789abcdef"
const layer = Layer.mergeAll(NodeHttpClient.layerUndici, NodeServices.layer)

const files = (entries: Record<string, Uint8Array | string>): ReadonlyMap<string, Uint8Array> =>
  new Map(Object.entries(entries).map(([k, v]) => [k, typeof v === "string" ? bytes(v) : v]))

interface Run {
  readonly endpoint: string
  readonly cache: string
  readonly token?: string | undefined
}

const resolveWith = (spec: string, run: Run) => {
  const ref = Hub.parseSpec(spec)
  if (typeof ref === "string") return Effect.die(new Error(ref))
  const options: Hub.HubOptions = {
    endpoint: run.endpoint,
    token: run.token === undefined ? undefined : Redacted.make(run.token),
    cacheDir: run.cache
  }
  return Hub.resolve(spec, ref, options).pipe(Effect.provide(layer))
}

const failure = (spec: string, run: Run) =>
  Effect.map(Effect.flip(resolveWith(spec, run)), (error) => {
    assert.instanceOf(error, DatasetError)
    assert.strictEqual(error.path, spec)
    assert.isTrue(error.message.startsWith(`${spec}: `), error.message)
    return error.message
  })

const read = (file: Hub.HubFile) => new Uint8Array(fs.readFileSync(file.local))

const pushed: FakeDataset = {
  refs: {
    main: {
      sha: sha("a"),
      files: files({
        "README.md": "# a dataset",
        ".gitattributes": "*.parquet filter=lfs",
        "data/train-00001-of-00002.parquet": content(3000, 2),
        "data/train-00000-of-00002.parquet": content(5000, 1),
        "data/test-00000-of-00001.parquet": content(700, 3)
      })
    },
    v1: { sha: sha("b"), files: files({ "data/train-00000-of-00001.parquet": "old train" }) }
  }
}

const hub = () =>
  serveHub({
    "owner/pushed": pushed,
    "owner/configs": {
      refs: {
        main: {
          sha: sha("c"),
          files: files({
            "en/train-00000-of-00001.parquet": "en train",
            "en/test-00000-of-00001.parquet": "en test",
            "fr/test/0000.parquet": "fr test 0",
            "fr/test/0001.parquet": "fr test 1",
            "fr/validation/0000.parquet": "fr validation",
            "de/de-test.parquet": "de test",
            "de/de-train-00000-of-00002.parquet": "de train 0",
            "de/de-train-00001-of-00002.parquet": "de train 1"
          })
        }
      }
    },
    "owner/csv": {
      refs: {
        main: { sha: sha("d"), files: files({ "README.md": "csv", "data/train.csv": "id,q\n1,a\n", "data/dev.csv": "id,q\n" }) },
        "refs/convert/parquet": {
          sha: sha("e"),
          files: files({
            "default/train/0000.parquet": "converted train 0",
            "default/train/0001.parquet": "converted train 1",
            "default/dev/0000.parquet": "converted dev"
          })
        }
      }
    },
    "owner/csv-only": { refs: { main: { sha: sha("f"), files: files({ "data/train.csv": "id\n" }) } } },
    "owner/splits": {
      refs: { main: { sha: sha("1"), files: files({ "data/test.parquet": "t", "data/validation-00000-of-00001.parquet": "v" }) } }
    },
    "owner/only-validation": { refs: { main: { sha: sha("2"), files: files({ "validation.parquet": "v" }) } } },
    "owner/gated": { token: TOKEN, refs: { main: { sha: sha("3"), files: files({ "data/train-00000-of-00001.parquet": content(1234) }) } } },
    "owner/broken": { failInfo: 500, refs: {} },
    "owner/big": { refs: { main: { sha: sha("4"), files: files({ "data/train-00000-of-00001.parquet": content(400_000, 9) }) } } }
  })

describe("parseSpec", () => {
  it("reads the repository, the revision (with slashes), the config and the split", () => {
    assert.deepStrictEqual(Hub.parseSpec("hf:owner/name"), { repo: "owner/name", revision: undefined, config: undefined, split: undefined })
    assert.deepStrictEqual(Hub.parseSpec("hf:my-org/data.set_2@v1.0?config=en&split=test"), {
      repo: "my-org/data.set_2",
      revision: "v1.0",
      config: "en",
      split: "test"
    })
    assert.deepStrictEqual(Hub.parseSpec("hf:o/n@refs/convert/parquet?split=test.clean"), {
      repo: "o/n",
      revision: "refs/convert/parquet",
      config: undefined,
      split: "test.clean"
    })
    assert.deepStrictEqual(Hub.parseSpec(`hf:o/n@${sha("a")}?config=20231101.en`), {
      repo: "o/n",
      revision: sha("a"),
      config: "20231101.en",
      split: undefined
    })
    assert.isTrue(Hub.isSpec("hf:o/n"))
    assert.isFalse(Hub.isSpec("tasks.jsonl"))
    assert.isFalse(Hub.isSpec("hf"))
  })

  it("refuses other forms with a message naming the spec and the expected form", () => {
    assert.strictEqual(Hub.parseSpec("hf:foo"), "--tasks hf:foo: expected hf:OWNER/NAME[@REVISION][?config=C&split=S]")
    for (const bad of ["hf:", "hf:o/n/x", "hf:/n", "hf:o/", "hf:o/..", "hf:../n", "hf:o/-n", "hf:o/n.", "hf:o/a--b", "hf:o o/n", "x:o/n"]) {
      const message = Hub.parseSpec(bad)
      assert.isString(message, bad)
      assert.include(message as string, `--tasks ${bad}: `)
      assert.include(message as string, "expected hf:OWNER/NAME[@REVISION][?config=C&split=S]")
    }
    assert.include(Hub.parseSpec("hf:o/n@") as string, "empty revision")
    const unknown = Hub.parseSpec("hf:o/n?x=1&split=train&revision=main") as string
    assert.include(unknown, `unknown query keys "x", "revision"`)
    assert.include(Hub.parseSpec("hf:o/n?splt=train") as string, `unknown query key "splt"`)
    assert.include(Hub.parseSpec("hf:o/n?split=a&split=b") as string, "split given twice")
    assert.include(Hub.parseSpec("hf:o/n?split=a-b") as string, `split "a-b" is not a split name`)
    assert.include(Hub.parseSpec("hf:o/n?split=") as string, `split "" is not a split name`)
    assert.include(Hub.parseSpec("hf:o/n?config=a/b") as string, `config "a/b" is not a config name`)
    assert.include(Hub.parseSpec("hf:o/n?config=..") as string, `config ".." is not a config name`)
  })
})

describe("options", () => {
  it("the cache is under $XDG_CACHE_HOME (absolute), else HOME/.cache", () => {
    assert.strictEqual(Hub.defaultCacheDir({ XDG_CACHE_HOME: "/var/cache/me" }, "/home/me"), path.join("/var/cache/me", "agent-trials"))
    assert.strictEqual(Hub.defaultCacheDir({}, "/home/me"), path.join("/home/me", ".cache", "agent-trials"))
    assert.strictEqual(Hub.defaultCacheDir({ XDG_CACHE_HOME: "relative" }, "/home/me"), path.join("/home/me", ".cache", "agent-trials"))
  })

  it("HF_ENDPOINT overrides the endpoint (trailing slashes dropped); HF_TOKEN is trimmed, none when empty", () => {
    const defaults = Hub.optionsFromEnv({}, "/h")
    assert.strictEqual(defaults.endpoint, "https://huggingface.co")
    assert.isUndefined(defaults.token)
    const set = Hub.optionsFromEnv({ HF_ENDPOINT: "http://127.0.0.1:9/hub//", HF_TOKEN: ` ${TOKEN}\n` }, "/h")
    assert.strictEqual(set.endpoint, "http://127.0.0.1:9/hub")
    assert.strictEqual(Redacted.value(set.token!), TOKEN)
    assert.notInclude(String(set.token), TOKEN)
    assert.isUndefined(Hub.optionsFromEnv({ HF_TOKEN: "  " }, "/h").token)
  })
})

describe("resolve", () => {
  it.live("the default config's train split by default: its shards in path order, downloaded from the sha, cached by sha", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      const resolved = yield* resolveWith("hf:owner/pushed", { endpoint: server.endpoint, cache })
      assert.strictEqual(resolved.repo, "owner/pushed")
      assert.strictEqual(resolved.requested, "main")
      assert.strictEqual(resolved.revision, sha("a"))
      assert.strictEqual(resolved.config, "default")
      assert.strictEqual(resolved.split, "train")
      assert.deepStrictEqual(resolved.files.map((f) => f.path), ["data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet"])
      for (const file of resolved.files) {
        assert.strictEqual(file.local, path.join(cache, "hf", "owner", "pushed", sha("a"), ...file.path.split("/")))
        assert.deepStrictEqual(read(file), new Uint8Array(pushed.refs["main"]!.files.get(file.path)!))
        assert.isFalse(fs.existsSync(`${file.local}.part`))
      }
      assert.strictEqual(server.count("/api/datasets/owner/pushed/revision/main"), 1)
      // Pinned to the sha, and the Parquet (LFS) files came through the CDN redirect.
      assert.strictEqual(server.count(`/datasets/owner/pushed/resolve/${sha("a")}/data/train-00000-of-00002.parquet`), 1)
      assert.strictEqual(server.count(`/cdn/owner/pushed/${sha("a")}/data/train-00000-of-00002.parquet`), 1)
      assert.strictEqual(server.count(`/datasets/owner/pushed/resolve/${sha("a")}/data/test-00000-of-00001.parquet`), 0)
    })))

  it.live("?split= asks another split; the only split is taken when there is no train; several without train is an error", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const run = { endpoint: server.endpoint, cache: cacheDir() }
      const test = yield* resolveWith("hf:owner/pushed?split=test", run)
      assert.strictEqual(test.split, "test")
      assert.deepStrictEqual(test.files.map((f) => f.path), ["data/test-00000-of-00001.parquet"])
      const only = yield* resolveWith("hf:owner/only-validation", run)
      assert.strictEqual(only.split, "validation")
      assert.deepStrictEqual(only.files.map((f) => f.path), ["validation.parquet"])
      const message = yield* failure("hf:owner/splits", run)
      assert.include(message, "no split asked and none is named train")
      assert.include(message, "test, validation")
    })))

  it.live("a named config: its folder, split by name prefix, by folder, or after the dataset name", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const run = { endpoint: server.endpoint, cache: cacheDir() }
      const en = yield* resolveWith("hf:owner/configs?config=en&split=test", run)
      assert.strictEqual(en.config, "en")
      assert.deepStrictEqual(en.files.map((f) => f.path), ["en/test-00000-of-00001.parquet"])
      assert.strictEqual(new TextDecoder().decode(read(en.files[0]!)), "en test")
      const fr = yield* resolveWith("hf:owner/configs?config=fr&split=test", run)
      assert.deepStrictEqual(fr.files.map((f) => f.path), ["fr/test/0000.parquet", "fr/test/0001.parquet"])
      const de = yield* resolveWith("hf:owner/configs?config=de", run)
      assert.strictEqual(de.split, "train")
      assert.deepStrictEqual(de.files.map((f) => f.path), ["de/de-train-00000-of-00002.parquet", "de/de-train-00001-of-00002.parquet"])
      const deTest = yield* resolveWith("hf:owner/configs?config=de&split=test", run)
      assert.deepStrictEqual(deTest.files.map((f) => f.path), ["de/de-test.parquet"])
    })))

  it.live("@REVISION is resolved to its sha, files are read at that sha, and the sha is returned", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const run = { endpoint: server.endpoint, cache: cacheDir() }
      const v1 = yield* resolveWith("hf:owner/pushed@v1", run)
      assert.strictEqual(v1.requested, "v1")
      assert.strictEqual(v1.revision, sha("b"))
      assert.deepStrictEqual(v1.files.map((f) => f.path), ["data/train-00000-of-00001.parquet"])
      assert.strictEqual(new TextDecoder().decode(read(v1.files[0]!)), "old train")
      assert.include(v1.files[0]!.local, sha("b"))
      assert.strictEqual(server.count("/api/datasets/owner/pushed/revision/v1"), 1)
      assert.strictEqual(server.count(`/datasets/owner/pushed/resolve/${sha("b")}/data/train-00000-of-00001.parquet`), 1)
      const bySha = yield* resolveWith(`hf:owner/pushed@${sha("a")}`, run)
      assert.strictEqual(bySha.requested, sha("a"))
      assert.strictEqual(bySha.revision, sha("a"))
      assert.strictEqual(bySha.files.length, 2)
    })))

  it.live("a main without Parquet falls back to refs/convert/parquet, whose sha is returned", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const run = { endpoint: server.endpoint, cache: cacheDir() }
      const resolved = yield* resolveWith("hf:owner/csv", run)
      assert.strictEqual(resolved.requested, "main")
      assert.strictEqual(resolved.revision, sha("e"))
      assert.strictEqual(resolved.split, "train")
      assert.deepStrictEqual(resolved.files.map((f) => f.path), ["default/train/0000.parquet", "default/train/0001.parquet"])
      assert.strictEqual(new TextDecoder().decode(read(resolved.files[1]!)), "converted train 1")
      assert.strictEqual(server.count("/api/datasets/owner/csv/revision/refs%2Fconvert%2Fparquet"), 1)
      assert.strictEqual(server.count(`/datasets/owner/csv/resolve/${sha("e")}/default/train/0000.parquet`), 1)
      const dev = yield* resolveWith("hf:owner/csv?split=dev", run)
      assert.deepStrictEqual(dev.files.map((f) => f.path), ["default/dev/0000.parquet"])
      // Asked for directly, the conversion branch is read in its own layout.
      const direct = yield* resolveWith("hf:owner/csv@refs/convert/parquet?split=dev", run)
      assert.strictEqual(direct.revision, sha("e"))
      assert.deepStrictEqual(direct.files.map((f) => f.path), ["default/dev/0000.parquet"])
    })))

  it.live("nothing matches: the message names the dataset, config and split, and lists what it found", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const run = { endpoint: server.endpoint, cache: cacheDir() }
      const dev = yield* failure("hf:owner/pushed?split=dev", run)
      assert.include(dev, `dataset owner/pushed has no Parquet files of config "default", split "dev"`)
      assert.include(dev, "configs default")
      assert.include(dev, `splits of "default": test, train`)
      // main holds Parquet of that config: the conversion would hold the same.
      assert.notInclude(dev, "refs/convert/parquet")
      assert.strictEqual(server.count("/api/datasets/owner/pushed/revision/refs%2Fconvert%2Fparquet"), 0)
      const converted = yield* failure("hf:owner/csv?split=nope", run)
      assert.include(converted, "at main: no Parquet files")
      assert.include(converted, `in its Parquet conversion (refs/convert/parquet): configs default; splits of "default": dev, train`)
      const config = yield* failure("hf:owner/configs?config=it&split=test", run)
      assert.include(config, `config "it", split "test"`)
      assert.include(config, "configs de, en, fr")
      const csv = yield* failure("hf:owner/csv-only", run)
      assert.include(csv, `config "default", any split`)
      assert.include(csv, "at main: no Parquet files")
      assert.include(csv, "no Parquet conversion (refs/convert/parquet)")
      // Another revision than main does not fall back: the conversion is of main.
      const pinned = yield* failure("hf:owner/csv@" + sha("d"), run)
      assert.notInclude(pinned, "refs/convert/parquet")
      assert.strictEqual(server.count("/api/datasets/owner/csv/revision/refs%2Fconvert%2Fparquet"), 1)
    })))

  it.live("a gated dataset without a token: 401, a message that says so and names HF_TOKEN", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const message = yield* failure("hf:owner/gated", { endpoint: server.endpoint, cache: cacheDir() })
      assert.include(message, "dataset owner/gated is gated or private")
      assert.include(message, "HTTP 401")
      assert.include(message, "set HF_TOKEN")
      assert.isUndefined(server.received[0]!.headers.authorization)
    })))

  it.live("with the right token: sent as a bearer token to the API and to resolve, and the files come", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const resolved = yield* resolveWith("hf:owner/gated", { endpoint: server.endpoint, cache: cacheDir(), token: TOKEN })
      assert.strictEqual(resolved.revision, sha("3"))
      assert.deepStrictEqual(read(resolved.files[0]!), content(1234))
      const info = server.requestsOf("/api/datasets/owner/gated/revision/main")
      const file = server.requestsOf(`/datasets/owner/gated/resolve/${sha("3")}/data/train-00000-of-00001.parquet`)
      assert.strictEqual(info[0]!.headers.authorization, `Bearer ${TOKEN}`)
      assert.strictEqual(file[0]!.headers.authorization, `Bearer ${TOKEN}`)
    })))

  it.live("the token never appears in a message: a token without access, and a body that echoes it", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const wrong = "hf_wrongToken9876543210zyxwvu"
      const denied = yield* failure("hf:owner/gated", { endpoint: server.endpoint, cache: cacheDir(), token: wrong })
      assert.include(denied, "the token in HF_TOKEN has no access to dataset owner/gated")
      assert.include(denied, "HTTP 403")
      assert.notInclude(denied, wrong)
      const echoed = yield* failure("hf:owner/broken", { endpoint: server.endpoint, cache: cacheDir(), token: TOKEN })
      assert.include(echoed, "HTTP 500 from ")
      assert.include(echoed, "upstream trouble")
      assert.include(echoed, "<redacted>")
      assert.notInclude(echoed, TOKEN)
      assert.strictEqual(server.requestsOf("/api/datasets/owner/broken/revision/main")[0]!.headers.authorization, `Bearer ${TOKEN}`)
    })))

  it.live("a cache hit makes no download request: only the revision is asked again", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const run = { endpoint: server.endpoint, cache: cacheDir() }
      const first = yield* resolveWith("hf:owner/pushed", run)
      const second = yield* resolveWith("hf:owner/pushed", run)
      assert.deepStrictEqual(second, first)
      for (const file of first.files) {
        assert.strictEqual(server.count(`/datasets/owner/pushed/resolve/${sha("a")}/${file.path}`), 1)
        assert.strictEqual(server.count(`/cdn/owner/pushed/${sha("a")}/${file.path}`), 1)
      }
      assert.strictEqual(server.count("/api/datasets/owner/pushed/revision/main"), 2)
    })))

  it.live("a .part left by an interrupted download is resumed with Range: bytes=N- and the file is byte-identical", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      const whole = content(400_000, 9)
      const file = "data/train-00000-of-00001.parquet"
      const local = path.join(cache, "hf", "owner", "big", sha("4"), ...file.split("/"))
      fs.mkdirSync(path.dirname(local), { recursive: true })
      fs.writeFileSync(`${local}.part`, whole.subarray(0, 123_456))
      const resolved = yield* resolveWith("hf:owner/big", { endpoint: server.endpoint, cache })
      assert.strictEqual(resolved.files[0]!.local, local)
      assert.deepStrictEqual(read(resolved.files[0]!), whole)
      assert.isFalse(fs.existsSync(`${local}.part`))
      const cdn = server.requestsOf(`/cdn/owner/big/${sha("4")}/${file}`)
      assert.strictEqual(cdn.length, 1)
      assert.strictEqual(cdn[0]!.headers.range, "bytes=123456-")
      // The Range header survived the redirect to the CDN, and was sent to resolve first.
      assert.strictEqual(server.requestsOf(`/datasets/owner/big/resolve/${sha("4")}/${file}`)[0]!.headers.range, "bytes=123456-")
    })))

  it.live("a download cut by the server fails asking to run again, keeps its .part, and the next run resumes it", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const run = { endpoint: server.endpoint, cache: cacheDir() }
      const whole = content(400_000, 9)
      const file = "data/train-00000-of-00001.parquet"
      const local = path.join(run.cache, "hf", "owner", "big", sha("4"), ...file.split("/"))
      server.cutNext(file, 150_000)
      const message = yield* failure("hf:owner/big", run)
      assert.include(message, "run again to resume it")
      assert.isFalse(fs.existsSync(local))
      const kept = fs.statSync(`${local}.part`).size
      assert.isAbove(kept, 0)
      assert.isAtMost(kept, 150_000)
      const resolved = yield* resolveWith("hf:owner/big", run)
      assert.deepStrictEqual(read(resolved.files[0]!), whole)
      const cdn = server.requestsOf(`/cdn/owner/big/${sha("4")}/${file}`)
      assert.strictEqual(cdn.length, 2)
      assert.isUndefined(cdn[0]!.headers.range)
      assert.strictEqual(cdn[1]!.headers.range, `bytes=${kept}-`)
    })))

  it.live("a server that ignores Range (200) starts the file over; a .part already whole (416) is just renamed", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      const whole = content(400_000, 9)
      const file = "data/train-00000-of-00001.parquet"
      const local = path.join(cache, "hf", "owner", "big", sha("4"), ...file.split("/"))
      fs.mkdirSync(path.dirname(local), { recursive: true })
      // Not a prefix of the file: kept bytes would corrupt it.
      fs.writeFileSync(`${local}.part`, new Uint8Array(5000).fill(0xff))
      server.ignoreRange = true
      const resolved = yield* resolveWith("hf:owner/big", { endpoint: server.endpoint, cache })
      assert.deepStrictEqual(read(resolved.files[0]!), whole)
      server.ignoreRange = false
      fs.rmSync(local)
      fs.writeFileSync(`${local}.part`, whole)
      const again = yield* resolveWith("hf:owner/big", { endpoint: server.endpoint, cache })
      assert.deepStrictEqual(read(again.files[0]!), whole)
      assert.isFalse(fs.existsSync(`${local}.part`))
      assert.strictEqual(server.requestsOf(`/cdn/owner/big/${sha("4")}/${file}`).at(-1)!.headers.range, `bytes=${whole.length}-`)
    })))

  it.live("404: no such dataset, no such revision", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const run = { endpoint: server.endpoint, cache: cacheDir() }
      const missing = yield* failure("hf:owner/missing", run)
      assert.include(missing, "no such dataset or revision: owner/missing@main")
      assert.include(missing, "HTTP 404")
      const revision = yield* failure("hf:owner/pushed@v9", run)
      assert.include(revision, "no such dataset or revision: owner/pushed@v9")
    })))

  it.live("no answer at all: the message names the endpoint URL", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const endpoint = `http://127.0.0.1:${port}`
      const message = yield* failure("hf:owner/name", { endpoint, cache: cacheDir(), token: TOKEN })
      assert.include(message, `cannot reach ${endpoint}/api/datasets/owner/name/revision/main`)
      assert.notInclude(message, TOKEN)
    }))
})
