/**
 * The page shell of a report: one self-contained HTML document (inline CSS,
 * inline scripts, inline SVG; a Content-Security-Policy that forbids any
 * request), escaping of user text, JSON safe inside a `<script>` block, and
 * the small blocks a report is made of (stat tiles, sections, tables).
 *
 * @since 0.1.0
 */
import * as HtmlText from "../internal/htmlText.ts"

/**
 * Escapes text for an HTML text node or a quoted attribute value. A
 * bidirectional or control character (U+202E, U+0007, ...) is shown as its
 * code point, `<U+202E>`, so it cannot reorder or hide the text around it.
 *
 * @category formatting
 * @since 0.1.0
 */
export const escape: (text: string) => string = HtmlText.escape

/**
 * Escapes text for an HTML text node, as `escape` does, with each control's
 * `<U+202E>` in a `<span class="ctl">` that the page styles apart from the text.
 *
 * @category formatting
 * @since 0.1.0
 */
export const text: (text: string) => string = HtmlText.escapeText

/**
 * HTML that is already safe (built by these helpers, or an SVG chart): kept
 * as is where a cell or a block takes text or HTML.
 *
 * @category models
 * @since 0.1.0
 */
export interface Raw {
  readonly _tag: "Raw"
  readonly html: string
}

/**
 * Marks `html` as safe.
 *
 * @category constructors
 * @since 0.1.0
 */
export const raw = (html: string): Raw => ({ _tag: "Raw", html })

/**
 * What a block takes: text (escaped), a number (formatted), nothing, or `raw` HTML.
 *
 * @category models
 * @since 0.1.0
 */
export type Content = string | number | null | undefined | Raw

/**
 * `content` as HTML: text escaped, numbers formatted, null/undefined as an em dash.
 *
 * @category formatting
 * @since 0.1.0
 */
export const render = (content: Content): string =>
  content === null || content === undefined
    ? "—"
    : typeof content === "number"
    ? escape(formatNumber(content))
    : typeof content === "string"
    ? text(content)
    : content.html

/**
 * `value` as JSON that is safe inside `<script type="application/json">`:
 * `<` is written `\u003c` (no `</script>` can close the block), and U+2028,
 * U+2029 and every bidirectional or control character are escaped (the file
 * holds none raw; the parsed value is the same).
 *
 * @category formatting
 * @since 0.1.0
 */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
    .replace(HtmlText.CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * A number for people: thousands separated, at most `digits` decimals.
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatNumber = (v: number, digits = 3): string =>
  Number.isFinite(v) ? v.toLocaleString("en-US", { maximumFractionDigits: digits }) : String(v)

/**
 * A fraction as a percentage (`0.1234` -> `12.3%`); an em dash for null.
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatPercent = (v: number | null | undefined, digits = 1): string =>
  v === null || v === undefined ? "—" : `${(v * 100).toFixed(digits)}%`

/**
 * A duration in seconds for people: `850 ms`, `12.4 s`, `3 min 5 s`, `2 h 4 min`.
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatDuration = (seconds: number): string => {
  if (!Number.isFinite(seconds)) return String(seconds)
  if (seconds < 1) return `${Number((seconds * 1000).toPrecision(3))} ms`
  if (seconds < 60) return `${Number(seconds.toPrecision(3))} s`
  const s = Math.round(seconds)
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

/**
 * The stylesheet every page carries: a clean, readable layout (cards, stat
 * tiles, tables, badges), light only.
 *
 * @category constants
 * @since 0.1.0
 */
export const baseCss = `
*{box-sizing:border-box}
body{margin:0;background:#f5f6f8;color:#1f2937;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px 20px 48px}
header.top{margin-bottom:16px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:16px;margin:0 0 12px}
.sub{color:#6b7280;font-size:13px;overflow-wrap:anywhere}
section.card{background:#fff;border:1px solid #e5e7eb;border-radius:10px;padding:16px 18px;margin:14px 0;box-shadow:0 1px 2px rgba(0,0,0,.04)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:14px}
.grid>section.card{margin:0}
.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px}
.stat{background:#fff;border:1px solid #e5e7eb;border-radius:10px;padding:10px 12px}
.stat .label{color:#6b7280;font-size:12px;text-transform:uppercase;letter-spacing:.03em}
.stat .value{font-size:20px;font-weight:600;margin-top:2px;font-variant-numeric:tabular-nums}
.stat .note{color:#6b7280;font-size:12px}
.stat.good .value{color:#15803d}.stat.bad .value{color:#b91c1c}.stat.warn .value{color:#b45309}
.note{color:#6b7280;font-size:12px;margin:8px 0 0}
svg.chart{max-width:100%;height:auto;display:block}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #eef0f3;vertical-align:top}
th{background:#f9fafb;color:#4b5563;font-weight:600;position:sticky;top:0;z-index:1}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:1px 7px;border-radius:999px;font-size:12px;font-weight:600;white-space:nowrap}
.badge.ok{background:#dcfce7;color:#166534}.badge.fail{background:#fee2e2;color:#991b1b}.badge.warn{background:#fef3c7;color:#92400e}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.ctl{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em;color:#9a3412;background:#ffedd5;border-radius:3px;padding:0 2px;white-space:nowrap}
`

/**
 * A whole document: `title`, the base stylesheet plus `css`, `body` (HTML),
 * and an inline `script`. Its Content-Security-Policy allows inline style,
 * inline script and `data:` images only, so opening the file makes no request.
 *
 * @category constructors
 * @since 0.1.0
 */
export const page = (options: {
  readonly title: string
  readonly body: string
  readonly css?: string
  readonly script?: string
  /** The page may fetch from its own origin (`connect-src 'self'`: the view's pages, served by `agent-trials view`). */
  readonly connectSelf?: boolean
}): string =>
  [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:${options.connectSelf === true ? "; connect-src 'self'" : ""}">`,
    `<title>${escape(options.title)}</title>`,
    `<style>${baseCss}${options.css ?? ""}</style></head>`,
    `<body><main>${options.body}</main>`,
    options.script === undefined ? "" : `<script>${options.script.replace(/<\/script/gi, "<\\/script")}</script>`,
    "</body></html>",
    ""
  ].join("\n")

/**
 * A card with a heading.
 *
 * @category constructors
 * @since 0.1.0
 */
export const section = (title: string, body: string, options?: { readonly id?: string; readonly note?: string }): string =>
  `<section class="card"${options?.id === undefined ? "" : ` id="${HtmlText.escapeValue(options.id)}"`}>` +
  `<h2>${text(title)}</h2>${body}` +
  (options?.note === undefined ? "" : `<p class="note">${text(options.note)}</p>`) +
  `</section>`

/**
 * One stat tile: a label, a big value, an optional note; `tone` colours the value.
 *
 * @category models
 * @since 0.1.0
 */
export interface Stat {
  readonly label: string
  readonly value: Content
  readonly note?: string
  readonly tone?: "good" | "bad" | "warn"
}

/**
 * A row of stat tiles.
 *
 * @category constructors
 * @since 0.1.0
 */
export const stats = (items: ReadonlyArray<Stat>): string =>
  `<div class="stats">` +
  items.map((s) =>
    `<div class="stat${s.tone === undefined ? "" : ` ${s.tone}`}"><div class="label">${text(s.label)}</div>` +
    `<div class="value">${render(s.value)}</div>` +
    (s.note === undefined ? "" : `<div class="note">${text(s.note)}</div>`) + `</div>`
  ).join("") +
  `</div>`

/**
 * A column of a table: `numeric` right-aligns it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Column {
  readonly label: string
  readonly numeric?: boolean
}

/**
 * A table rendered on the server: every cell is `Content` (text escaped).
 *
 * @category constructors
 * @since 0.1.0
 */
export const table = (columns: ReadonlyArray<Column>, rows: ReadonlyArray<ReadonlyArray<Content>>): string =>
  `<table><thead><tr>` +
  columns.map((c) => `<th${c.numeric === true ? ` class="num"` : ""}>${text(c.label)}</th>`).join("") +
  `</tr></thead><tbody>` +
  rows.map((row) =>
    `<tr>` + row.map((cell, i) => `<td${columns[i]?.numeric === true ? ` class="num"` : ""}>${render(cell)}</td>`).join("") +
    `</tr>`
  ).join("") +
  `</tbody></table>`

/**
 * A coloured pill: `ok` (green), `fail` (red) or `warn` (amber).
 *
 * @category constructors
 * @since 0.1.0
 */
export const badge = (label: string, tone: "ok" | "fail" | "warn"): Raw =>
  raw(`<span class="badge ${tone}">${text(label)}</span>`)
