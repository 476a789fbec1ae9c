/**
 * A strict reader of the XML subset the JUnit output writes, for the tests:
 * a declaration, elements with double-quoted attributes, character data
 * and the five named entities and decimal character references. Anything
 * else (a raw `<` or `&`, a `]]>` in text, a character XML 1.0 forbids, an
 * unbalanced or unclosed tag, a repeated attribute, text outside the root)
 * throws, naming where.
 */
export interface XmlElement {
  readonly name: string
  readonly attrs: Record<string, string>
  readonly children: Array<XmlElement>
  text: string
}

const NAME = "[A-Za-z_][\\w.-]*"
const REF = "&(?:amp|lt|gt|quot|apos|#\\d+);"
const TOKEN = new RegExp(
  `^(?:<(${NAME})((?:\\s+${NAME}="(?:[^"<&]|${REF})*")*)\\s*(/?)>|</(${NAME})\\s*>|((?:[^<&]|${REF})+))`
)
const ATTR = new RegExp(`(${NAME})="((?:[^"<&]|${REF})*)"`, "g")
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/

const decode = (text: string): string =>
  text.replace(/&(amp|lt|gt|quot|apos|#\d+);/g, (_, ref: string) =>
    ref === "amp" ? "&" : ref === "lt" ? "<" : ref === "gt" ? ">" : ref === "quot" ? '"' : ref === "apos" ? "'"
    : String.fromCodePoint(Number(ref.slice(1))))

/** The root element of `xml`, or an Error saying where it is not well-formed. */
export const parseXml = (xml: string): XmlElement => {
  const bad = FORBIDDEN.exec(xml)
  if (bad !== null) throw new Error(`a character XML 1.0 forbids at ${bad.index}`)
  const declaration = /^<\?xml version="1\.0" encoding="UTF-8"\?>\s*/.exec(xml)
  if (declaration === null) throw new Error("no XML declaration")
  let rest = xml.slice(declaration[0].length)
  const stack: Array<XmlElement> = []
  let root: XmlElement | undefined
  while (rest.length > 0) {
    const m = TOKEN.exec(rest)
    if (m === null) throw new Error(`not well-formed at ${JSON.stringify(rest.slice(0, 80))}`)
    if (m[1] !== undefined) {
      const attrs: Record<string, string> = {}
      for (const [, name, value] of m[2].matchAll(ATTR)) {
        if (name in attrs) throw new Error(`attribute ${name} twice in <${m[1]}>`)
        attrs[name!] = decode(value!)
      }
      const element: XmlElement = { name: m[1], attrs, children: [], text: "" }
      const parent = stack.at(-1)
      if (parent === undefined) {
        if (root !== undefined) throw new Error(`a second root <${m[1]}>`)
        root = element
      } else {
        parent.children.push(element)
      }
      if (m[3] !== "/") stack.push(element)
    } else if (m[4] !== undefined) {
      const open = stack.pop()
      if (open?.name !== m[4]) throw new Error(`</${m[4]}> closes <${open?.name}>`)
    } else {
      if (m[5]!.includes("]]>")) throw new Error(`"]]>" in character data: ${JSON.stringify(m[5])}`)
      const parent = stack.at(-1)
      if (parent === undefined) {
        if (m[5]!.trim() !== "") throw new Error(`text outside the root: ${JSON.stringify(m[5])}`)
      } else {
        parent.text += decode(m[5]!)
      }
    }
    rest = rest.slice(m[0].length)
  }
  if (stack.length > 0) throw new Error(`<${stack.at(-1)!.name}> is not closed`)
  if (root === undefined) throw new Error("no root element")
  return root
}

/** Every element named `name` under `element`, depth first. */
export const all = (element: XmlElement, name: string): Array<XmlElement> => [
  ...(element.name === name ? [element] : []),
  ...element.children.flatMap((child) => all(child, name))
]
