/**
 * User text in a page, escaped once for every place it is shown. Besides
 * `& < > " '`, the characters a page must not display as they are:
 * bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
 * U+061C), which reorder the text around them (an U+202E in an id shows
 * `gnp.exe` as `exe.png`), and C0 and C1 controls other than tab and newline
 * (a CR before a newline is part of the newline). Each is shown as its code
 * point, `<U+202E>`. The report table's script in the browser marks them
 * with the same `CONTROLS` and `mark`, so a text reads the same wherever it
 * is rendered.
 *
 * @internal
 */

/**
 * Every character that is shown as its code point. A global regex: reset
 * `lastIndex` before `exec` with it.
 *
 * @internal
 */
export const CONTROLS =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g

/**
 * The code point of `c` as it is shown: `<U+202E>`.
 *
 * @internal
 */
export const mark = (c: string): string => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`

const specials = (text: string): string =>
  text.replace(/[&<>"']/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;")

/**
 * `text` for an HTML or SVG text node or a quoted attribute that is shown (a
 * title, a tooltip): each control as its plain mark, `&lt;U+202E&gt;`.
 *
 * @internal
 */
export const escape = (text: string): string => specials(text.replace(CONTROLS, mark))

/**
 * `text` for an HTML text node: each control as its mark in a
 * `<span class="ctl">`, styled by the page so it stands out from the text.
 *
 * @internal
 */
export const escapeText = (text: string): string =>
  specials(text).replace(CONTROLS, (c) => `<span class="ctl">${specials(mark(c))}</span>`)

/**
 * `text` for a quoted attribute that holds data, not shown (a key the page's
 * script looks up): each control as a character reference, so the value is
 * `text` itself and the file holds no raw control.
 *
 * @internal
 */
export const escapeValue = (text: string): string =>
  specials(text).replace(CONTROLS, (c) => `&#x${c.charCodeAt(0).toString(16)};`)
