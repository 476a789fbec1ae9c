/**
 * What of an agent's URL and credentials may be shown, and the scrubbing of
 * the rest from anything a server sends back: a URL is shown only through
 * `redactUrl`, and a `scrubber` of `urlSecrets` and the credential values
 * runs over every body before a message or record can quote it.
 *
 * @internal
 */

const REDACTED = "<redacted>"

/**
 * Replaces every occurrence of each secret (raw, JSON-escaped and
 * percent-encoded, as a server may echo it) with `<redacted>`.
 *
 * @internal
 */
export const scrubber = (secrets: ReadonlyArray<string>): (text: string) => string => {
  const forms = new Set<string>()
  for (const secret of secrets) {
    if (secret.length === 0) continue
    forms.add(secret)
    forms.add(JSON.stringify(secret).slice(1, -1))
    forms.add(encodeURIComponent(secret))
  }
  // Longest first, so a secret that contains another is removed whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length)
  if (ordered.length === 0) return (text) => text
  return (text) => ordered.reduce((acc, form) => acc.replaceAll(form, REDACTED), text)
}

/**
 * URL parts shorter than this are not scrubbed from bodies (a `?v=1` or
 * `?format=json` would otherwise rewrite every "1" or "json" in an output),
 * unless they are a password or the value of a parameter named like a
 * credential. No part of a URL is shown in a message either way.
 */
const MIN_SCRUBBED_LENGTH = 8

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
 * What of `url` a server could echo back and a record must not keep: the
 * password, the values of credential-like parameters, and the user name and
 * other query values that are at least `MIN_SCRUBBED_LENGTH` long; each as
 * written, decoded and as the request sends it. For `scrubber`.
 *
 * @internal
 */
export const urlSecrets = (url: string): Array<string> => {
  const out: Array<string> = []
  const add = (text: string, always: boolean) => {
    for (const form of [text, decodeComponent(text)]) {
      if (form.length > 0 && (always || form.length >= MIN_SCRUBBED_LENGTH)) out.push(form)
    }
  }
  // As typed, and as the URL parser normalises it for the request.
  const spellings = URL.canParse(url) ? [url, new URL(url).href] : [url]
  for (const spelling of spellings) {
    const { query, userinfo } = splitUrl(spelling)
    if (userinfo !== undefined) {
      const colon = userinfo.indexOf(":")
      add(colon === -1 ? userinfo : userinfo.slice(0, colon), false)
      if (colon !== -1) add(userinfo.slice(colon + 1), true)
    }
    // `;` too: some servers split on it, and would echo `key=...` on its own.
    for (const part of query?.split(/[&;]/) ?? []) {
      const eq = part.indexOf("=")
      add(part.slice(eq + 1), eq > 0 && isCredentialName(decodeComponent(part.slice(0, eq))))
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

// A part without `=` is redacted whole: `?sk-123` is a value with no name.
const redactParams = (params: string): string =>
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
