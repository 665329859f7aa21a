// JSON string escaping and HTML escaping as the serialisers a check or a trace writer might use
// produce them. Each variant is one way a secret can be written; none of them is "the" escaping.

export interface JsonEscaping {
  /** How characters above U+007E are written: as they are (JSON.stringify) or as \uXXXX. */
  readonly nonAscii: 'raw' | 'lower' | 'upper'
  /** PHP and some Java serialisers write `/` as `\/`. */
  readonly escapeSlash: boolean
  /** Go's encoding/json and "HTML-safe" serialisers write `<`, `>`, `&` and `'` as \u003c and so on. */
  readonly htmlSafe: boolean
}

export const JSON_ESCAPINGS: readonly JsonEscaping[] = [
  { nonAscii: 'raw', escapeSlash: false, htmlSafe: false },
  { nonAscii: 'raw', escapeSlash: true, htmlSafe: false },
  { nonAscii: 'lower', escapeSlash: false, htmlSafe: false },
  { nonAscii: 'lower', escapeSlash: true, htmlSafe: false },
  { nonAscii: 'upper', escapeSlash: false, htmlSafe: false },
  { nonAscii: 'upper', escapeSlash: true, htmlSafe: false },
  { nonAscii: 'raw', escapeSlash: false, htmlSafe: true },
  { nonAscii: 'lower', escapeSlash: false, htmlSafe: true },
]

const HTML_SAFE_JSON = new Set(['<', '>', '&', "'", '\u2028', '\u2029'])

function unicodeEscape(codeUnit: number, upper: boolean): string {
  const hex = codeUnit.toString(16).padStart(4, '0')
  return `\\u${upper ? hex.toUpperCase() : hex}`
}

/** The inside of a JSON string literal holding `value` (no surrounding quotes). */
export function jsonEscape(value: string, escaping: JsonEscaping): string {
  // JSON.stringify gives the standard escapes (\" \\ \n \u001f, lone surrogates as \udXXX).
  const standard = JSON.stringify(value).slice(1, -1)
  let out = ''
  for (let i = 0; i < standard.length; i++) {
    const c = standard[i]!
    const code = standard.charCodeAt(i)
    if (c === '\\') {
      // Copy an existing escape whole so its backslash is not mistaken for a character to escape.
      const length = standard[i + 1] === 'u' ? 6 : 2
      out += standard.slice(i, i + length)
      i += length - 1
    } else if (c === '/' && escaping.escapeSlash) out += '\\/'
    else if (escaping.htmlSafe && HTML_SAFE_JSON.has(c)) out += unicodeEscape(code, false)
    else if (code > 0x7e && escaping.nonAscii !== 'raw')
      out += unicodeEscape(code, escaping.nonAscii === 'upper')
    else out += c
  }
  return out
}

export interface HtmlEscaping {
  /** Characters escaped, each with the entity used for it. */
  readonly entities: Readonly<Record<string, string>>
}

export const HTML_ESCAPINGS: readonly HtmlEscaping[] = [
  // lodash.escape, Handlebars and most template engines
  { entities: { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' } },
  // React, Playwright's HTML report
  { entities: { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' } },
  { entities: { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' } },
  { entities: { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' } },
  // How a browser serialises a text node (innerHTML) and an attribute value
  { entities: { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' } },
  { entities: { '&': '&amp;', '"': '&quot;', '\u00a0': '&nbsp;' } },
]

export function htmlEscape(value: string, escaping: HtmlEscaping): string {
  let out = ''
  for (const c of value) out += escaping.entities[c] ?? c
  return out
}
