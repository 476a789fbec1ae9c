/**
 * What of an agent's URL and credentials may be shown, and the scrubbing of
 * the rest from anything a server sends back: a URL is shown only through
 * `redactUrl`, and a `scrubber` of `urlSecrets` and the credential values
 * runs over every body before a message or record can quote it. A trace
 * carries every string through `redactText`: its URLs redacted, and every
 * secret of every scrubber made in the process scrubbed (the exporter serves
 * every run of the process). What a run's records lose of the strings no
 * scrubber saw is the run's own `Redactor` (runner/Redactor.ts).
 *
 * @internal
 */

const REDACTED = "<redacted>"

/**
 * Text shorter than this is never scrubbed on its own: a one-letter key
 * would turn every "index" of a response into "inde<redacted>", a `?v=1`
 * every "1". A short value is scrubbed only after its name, as a URL or a
 * header carries it (`api_key=k9`, `Bearer x`).
 */
const MIN_SECRET_LENGTH = 8

/**
 * What a `scrubber` removes: a secret of at least 8 characters wherever it
 * stands as a whole token, or a `value` of any length only right after its
 * `prefix` (`{ prefix: "api_key=", value: "k9" }` scrubs `api_key=k9` to
 * `api_key=<redacted>` and leaves a bare `k9` alone).
 *
 * @internal
 */
export type Secret = string | { readonly prefix: string; readonly value: string }

/**
 * Replaces each secret (raw, JSON-escaped and percent-encoded, as a server
 * may echo it) with `<redacted>`, only where it is a whole token: not
 * preceded or followed by a letter, digit or `_`, so a key never rewrites
 * part of a longer word or number. A percent escape (`%20`) or a JSON
 * escape (`\n`, `\u0020`) just before it counts as a delimiter. A secret
 * shorter than 8 characters is not scrubbed on its own (see `Secret`).
 *
 * Every secret is also remembered for `redactText`, which the trace
 * exporter applies to every string it sends. The records of a run lose
 * `secrets` (not `own`) once the agent hands them to the run's `Redactor`
 * (`Redactor.remember`, at each call). `own` secrets (an agent's URL's
 * user name and ordinary long query values, which a server may echo) are
 * scrubbed by this scrubber and the trace only: in every record they would
 * cut a model's name or a word out of other agents' answers.
 *
 * **Example** (Whole tokens only)
 *
 * ```ts
 * import { scrubber } from "./redact.ts"
 *
 * const scrub = scrubber(["sk-12345678", "x", { prefix: "api_key=", value: "k9" }])
 * scrub(`Bearer sk-12345678, "index": 1, ?api_key=k9`) // `Bearer <redacted>, "index": 1, ?api_key=<redacted>`
 * scrub("xsk-12345678 k9") // unchanged
 * ```
 *
 * @internal
 */
export const scrubber = (secrets: ReadonlyArray<Secret>, own: ReadonlyArray<Secret> = []): (text: string) => string => {
  for (const secret of secrets) rememberTraced(secret)
  for (const secret of own) rememberTraced(secret)
  return build(own.length === 0 ? secrets : [...secrets, ...own])
}

/**
 * `text` as it may leave the process in a trace: every URL in it through
 * `redactUrl`, then every secret any `scrubber` of this process was made
 * for removed. For text that no agent's own scrubber saw: span attributes
 * (`url.full`), errors Effect's HTTP client makes, stack traces.
 *
 * @internal
 */
export const redactText = (text: string): string => {
  // Punctuation after a URL (`(POST http://h/?k=v)`) is the text's, not the URL's.
  const urlsRedacted = !text.includes("://") ? text : text.replace(urlInText, (url) => {
    const trailing = /[).,;:!?\]]*$/.exec(url)![0]
    return redactUrl(url.slice(0, url.length - trailing.length)) + trailing
  })
  return (tracedScrub ??= build([...traced.values()]))(urlsRedacted)
}

/**
 * The secrets a command line brings, for the command's `Redactor` before it
 * runs: `OPENAI_API_KEY` (the `openai:` agents' and the judges' key),
 * `ANTHROPIC_API_KEY` (the `anthropic:` ones'),
 * `HF_TOKEN`, and the credentials of every URL in the arguments and in the
 * `AGENT_TRIALS_*` variables that stand for them (`--agent`, `--tools
 * mcp:URL`, `--score judge:URL`, `--cluster`): `urlCredentials`, not the
 * user name or ordinary values (`postgres`, `?model=Qwen2.5-7B-Instruct`),
 * which every record would lose. A tool or an agent may echo any of them
 * whether or not this process sends it.
 *
 * @internal
 */
export const commandLineSecrets = (
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>
): Array<Secret> => {
  const texts = [...argv, ...Object.entries(env).flatMap(([name, value]) => name.startsWith("AGENT_TRIALS_") && value ? [value] : [])]
  return [
    ...keySecrets(env["OPENAI_API_KEY"] ?? ""),
    ...keySecrets(env["ANTHROPIC_API_KEY"] ?? ""),
    ...keySecrets(env["HF_TOKEN"]?.trim() ?? ""),
    ...texts.flatMap(urlsIn).flatMap(urlCredentials)
  ]
}

const urlInText = /\b[a-z][a-z\d+.-]*:\/\/[^\s"'`<>]+/gi

/**
 * The URLs in `text` (`openai:https://h/v1?k=v` holds one), for
 * `urlCredentials` of each over a command line.
 *
 * @internal
 */
export const urlsIn = (text: string): Array<string> => text.includes("://") ? text.match(urlInText) ?? [] : []

// Every secret any scrubber or Redactor of the process was given, which the
// trace loses (`redactText`): the exporter serves every run of the process.
const traced = new Map<string, Secret>()
let tracedScrub: ((text: string) => string) | undefined

/**
 * A key for `secret` in a set of secrets: two spellings of one secret share it.
 *
 * @internal
 */
export const secretId = (secret: Secret): string =>
  typeof secret === "string" ? `=${secret}` : `${secret.prefix}\u0000${secret.value}`

/**
 * Adds `secret` to what `redactText` removes.
 *
 * @internal
 */
export const rememberTraced = (secret: Secret): void => {
  const id = secretId(secret)
  if (traced.has(id)) return
  traced.set(id, secret)
  tracedScrub = undefined
}

// A letter, digit or `_` (Unicode-aware): what a secret's edges must not touch.
const wordChar = /[\p{L}\p{N}_]/u
// Before a secret that starts with a word character: none, or a percent
// escape or a JSON escape, which end in a word character but delimit.
const before = String.raw`(?:(?<![\p{L}\p{N}_])|(?<=%[0-9A-Fa-f]{2}|\\[bfnrt]|\\u[0-9A-Fa-f]{4}))`
const after = String.raw`(?![\p{L}\p{N}_])`

/**
 * The scrub of `secrets` (see `scrubber`), remembered nowhere: `noSecrets`
 * when there is nothing to remove.
 *
 * @internal
 */
export const build = (secrets: ReadonlyArray<Secret>): (text: string) => string => {
  // Each spelling as it may appear, and what replaces it.
  const replacements = new Map<string, string>()
  const add = (form: string, replacement: string) => {
    if (!replacements.has(form)) replacements.set(form, replacement)
  }
  for (const secret of secrets) {
    if (typeof secret === "string") {
      if (secret.length < MIN_SECRET_LENGTH) continue
      for (const form of [secret, jsonEscaped(secret), encodeURIComponent(secret)]) add(form, REDACTED)
    } else if (secret.value.length > 0) {
      const { prefix, value } = secret
      add(prefix + value, prefix + REDACTED)
      add(prefix + encodeURIComponent(value), prefix + REDACTED)
      add(encodeURIComponent(prefix + value), encodeURIComponent(prefix) + REDACTED)
      add(jsonEscaped(prefix) + jsonEscaped(value), jsonEscaped(prefix) + REDACTED)
    }
  }
  if (replacements.size === 0) return noSecrets
  // Longest first, so a secret that contains another is removed whole.
  const forms = [...replacements.keys()].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(
    forms.map((form) => (wordChar.test(form[0]!) ? before : "") + escapeRegExp(form) + (wordChar.test(form.at(-1)!) ? after : ""))
      .join("|"),
    "gu"
  )
  // A text shorter than every form holds none (most keys and values of a body).
  const shortest = forms.at(-1)!.length
  return (text) => text.length < shortest ? text : text.replace(pattern, (match) => replacements.get(match) ?? REDACTED)
}

/**
 * The scrub of no secrets: a `Redactor` knows it by its identity.
 *
 * @internal
 */
export const noSecrets = (text: string): string => text

const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1)

// Only the syntax characters: the `u` flag refuses other escapes.
const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

// Words of a parameter name (`api_key`, `accessToken`, `X-Amz-Signature`)
// that make its value a credential. Covers Effect's own list
// (`UrlParams.CurrentRedactedNames`: signatures, AWS credentials) and the
// names API keys travel under; whole words, so `keyword` or `author` are not.
const credentialWords = new Set([
  "key", "apikey", "token", "secret", "password", "passwd", "pwd", "pass",
  "auth", "authorization", "sig", "signature", "credential", "credentials", "session", "sessionid"
])

const isCredentialName = (name: string): boolean =>
  name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).some((word) => credentialWords.has(word.toLowerCase()))

/**
 * `url` without its credentials, for a key that must not hold them (the
 * response cache's): no userinfo, and no query parameter named like one
 * (`api_key`, `token`, `sig`, ...); every other part as the URL parser
 * writes it. Text that is not a URL is `redactUrl`'s.
 *
 * **Example** (Two keys, one URL)
 *
 * ```ts
 * import { withoutCredentials } from "./redact.ts"
 *
 * withoutCredentials("https://me:pw@host/v1?api_key=sk-1&mode=fast") // "https://host/v1?mode=fast"
 * ```
 *
 * @internal
 */
export const withoutCredentials = (url: string): string => {
  if (!URL.canParse(url)) return redactUrl(url)
  const parsed = new URL(url)
  parsed.username = ""
  parsed.password = ""
  for (const name of [...parsed.searchParams.keys()]) {
    if (isCredentialName(name)) parsed.searchParams.delete(name)
  }
  return parsed.href
}

/**
 * An API key as a `scrubber` takes it: the key, and the key after `Bearer `
 * (how a server echoes the header), so a key shorter than 8 characters is
 * still scrubbed there. None for an empty key.
 *
 * @internal
 */
export const keySecrets = (key: string): Array<Secret> => key === "" ? [] : [key, { prefix: "Bearer ", value: key }]

/**
 * The URL as messages show it: userinfo and the value of every query and
 * fragment parameter replaced by `<redacted>`, parameter names and
 * everything else as written. All values, not only those with secret-looking
 * names: `?api_key=`, `?key=`, `?token=` and `?code=` are all in use, and a
 * name list would miss the next one. Text that is not a valid URL is redacted
 * the same way (more of it, when unsure where the userinfo ends).
 *
 * **Example** (What a message shows of a URL)
 *
 * ```ts
 * import { redactUrl } from "./redact.ts"
 *
 * redactUrl("https://me:pw@host/v1?api_key=sk-1&mode=fast&debug")
 * // "https://<redacted>@host/v1?api_key=<redacted>&mode=<redacted>&<redacted>"
 * ```
 *
 * @internal
 */
export const redactUrl = (url: string): string => {
  const parts = splitUrl(url)
  return parts.head +
    (parts.userinfo === undefined ? "" : `${REDACTED}@`) +
    parts.path +
    (parts.query === undefined ? "" : `?${redactParams(parts.query)}`) +
    (parts.fragment === undefined ? "" : `#${redactParams(parts.fragment)}`)
}

/**
 * What of `url` a server could echo back and a record must not keep, for
 * `scrubber`: the user name, the password and the query values of 8
 * characters or more, each as written, decoded and as the request sends it.
 * A shorter password, or a shorter value of a parameter named like a
 * credential, only after its name (`alice:pw`, `api_key=k9`); other short
 * values not at all: a `?v=1` or `?format=json` would otherwise be scrubbed
 * from every `v=1` or `format=json` of an output. No part of a URL is shown
 * in a message either way (`redactUrl`).
 *
 * @internal
 */
export const urlSecrets = (url: string): Array<Secret> => secretsOf(url, false)

/**
 * What of `url` is a credential, for every record: the password and the
 * values of parameters named like one (`api_key`, `token`, `sig`, ...), each
 * of 8 characters or more on its own and shorter ones after their name. Not
 * the user name nor other values, which are words of their own
 * (`postgres://postgres:pw@db?sslmode=verify-full`, `?model=Qwen2.5-7B-Instruct`).
 *
 * @internal
 */
export const urlCredentials = (url: string): Array<Secret> => secretsOf(url, true)

const secretsOf = (url: string, credentialsOnly: boolean): Array<Secret> => {
  const out: Array<Secret> = []
  // `prefix`, when a short value may be scrubbed after it.
  const add = (text: string, prefix: string | undefined) => {
    for (const [name, value] of [[prefix, text], [prefix && decodeComponent(prefix), decodeComponent(text)]]) {
      if (value === undefined || value.length === 0) continue
      if (value.length >= MIN_SECRET_LENGTH) out.push(value)
      else if (name !== undefined) out.push({ prefix: name, value })
    }
  }
  // As typed, and as the URL parser normalises it for the request.
  const spellings = URL.canParse(url) ? [url, new URL(url).href] : [url]
  for (const spelling of spellings) {
    const { query, userinfo } = splitUrl(spelling)
    if (userinfo !== undefined) {
      const colon = userinfo.indexOf(":")
      if (!credentialsOnly) add(colon === -1 ? userinfo : userinfo.slice(0, colon), undefined)
      if (colon !== -1) add(userinfo.slice(colon + 1), userinfo.slice(0, colon + 1))
    }
    // `;` too: some servers split on it, and would echo `key=...` on its own.
    for (const part of query?.split(/[&;]/) ?? []) {
      const eq = part.indexOf("=")
      const credential = eq > 0 && isCredentialName(decodeComponent(part.slice(0, eq)))
      if (credential || !credentialsOnly) add(part.slice(eq + 1), credential ? part.slice(0, eq + 1) : undefined)
    }
  }
  return out
}

interface UrlParts {
  /** Scheme and slashes. */
  readonly head: string
  readonly userinfo: string | undefined
  /** Host, port and path. */
  readonly path: string
  readonly query: string | undefined
  readonly fragment: string | undefined
}

const splitUrl = (url: string): UrlParts => {
  const head = /^\s*(?:[a-z][a-z\d+.-]*:)?[/\\]*/i.exec(url)![0]
  const afterHead = url.slice(head.length)
  // Where the authority ends: the URL parser's rule when the text parses;
  // otherwise only at a slash, so a `?`, `#` or `\` typed in a password cannot
  // cut the userinfo short and leave the rest of it on show.
  const end = afterHead.search(
    !URL.canParse(url) ? /\// : /^\s*(?:https?|wss?|ftp|file):/i.test(head) ? /[/\\?#]/ : /[/?#]/
  )
  const at = (end === -1 ? afterHead : afterHead.slice(0, end)).lastIndexOf("@")
  const rest = afterHead.slice(at + 1)
  const hash = rest.indexOf("#")
  const beforeHash = hash === -1 ? rest : rest.slice(0, hash)
  const mark = beforeHash.indexOf("?")
  return {
    head,
    userinfo: at === -1 ? undefined : afterHead.slice(0, at),
    path: mark === -1 ? beforeHash : beforeHash.slice(0, mark),
    query: mark === -1 ? undefined : beforeHash.slice(mark + 1),
    fragment: hash === -1 ? undefined : rest.slice(hash + 1)
  }
}

/**
 * A query string (`a=1&b`) as `redactUrl` shows it: names kept, values
 * redacted. A part without `=` is redacted whole: `?sk-123` is a value with
 * no name.
 *
 * @internal
 */
export const redactParams = (params: string): string =>
  params.split("&").map((part) => {
    const eq = part.indexOf("=")
    if (eq === -1) return part === "" ? "" : REDACTED
    return eq === part.length - 1 ? part : `${part.slice(0, eq + 1)}${REDACTED}`
  }).join("&")

const decodeComponent = (text: string): string => {
  try {
    return decodeURIComponent(text.replaceAll("+", " "))
  } catch {
    return text
  }
}
