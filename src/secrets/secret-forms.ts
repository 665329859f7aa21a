// Every string a secret value can turn into on its way out of a check: the raw value (trimmed too,
// in both Unicode normalisations), its percent-encodings, JSON and HTML escapings, those again
// inside a JSON document (a trace file holding a request body), and base64 and base64url of the
// value and its common encodings at every alignment.

import { base64Forms } from './base64-forms.ts'
import { FORM_URLENCODED, PERCENT_ENCODINGS, percentEncode, URI_COMPONENT } from './percent-encoding.ts'
import { HTML_ESCAPINGS, htmlEscape, JSON_ESCAPINGS, type JsonEscaping, jsonEscape } from './text-escaping.ts'

/**
 * Forms shorter than this are dropped: they would match by chance. The raw value itself is never
 * shorter, because values under MIN_SECRET_LENGTH characters are not scrubbed at all.
 */
export const MIN_FORM_LENGTH = 4

const STANDARD_JSON: JsonEscaping = { nonAscii: 'raw', escapeSlash: false, htmlSafe: false }
const SLASH_JSON: JsonEscaping = { nonAscii: 'raw', escapeSlash: true, htmlSafe: false }

interface ValueForms {
  /** Every escaped form of the value, the value included. */
  readonly escaped: string[]
  /**
   * The forms a program plausibly base64-encodes: the value, its JSON string and its usual URL and
   * form encodings. Base64 of every exotic escaping would multiply the forms without a real source.
   */
  readonly base64Sources: string[]
}

function valueForms(value: string): ValueForms {
  // encodeURIComponent and TextEncoder cannot represent a lone surrogate; they would throw or change it.
  const wellFormed = value.toWellFormed()
  const escaped = [value]
  const base64Sources = [value, jsonEscape(value, STANDARD_JSON)]
  for (const encoding of PERCENT_ENCODINGS) {
    const upper = percentEncode(wellFormed, encoding, false)
    escaped.push(upper, percentEncode(wellFormed, encoding, true))
    if (encoding.base64Source) base64Sources.push(upper)
  }
  for (const escaping of JSON_ESCAPINGS) escaped.push(jsonEscape(value, escaping))
  for (const escaping of HTML_ESCAPINGS) escaped.push(htmlEscape(value, escaping))
  // A URL or a JSON document carried in a query parameter or form field (a redirect target, a state blob).
  for (const inner of [
    percentEncode(wellFormed, URI_COMPONENT, false),
    jsonEscape(wellFormed, STANDARD_JSON),
  ]) {
    for (const encoding of [URI_COMPONENT, FORM_URLENCODED]) {
      escaped.push(percentEncode(inner, encoding, false), percentEncode(inner, encoding, true))
    }
  }
  return { escaped, base64Sources }
}

/** All distinct forms of `value`, longest first. */
export function secretForms(value: string): string[] {
  const forms = new Set<string>()
  const base64Sources = new Set<string>()
  // A value read from a file often ends in a newline that the check never sends.
  const trimmed = value.trim()
  const variants = [value, trimmed].flatMap((v) => [v, v.normalize('NFC'), v.normalize('NFD')])
  for (const normalised of new Set(variants)) {
    const { escaped, base64Sources: sources } = valueForms(normalised)
    for (const form of escaped) {
      forms.add(form)
      // A form inside a JSON document: a request body or URL recorded in a trace or a log line.
      forms.add(jsonEscape(form, STANDARD_JSON))
      forms.add(jsonEscape(form, SLASH_JSON))
    }
    for (const source of sources) base64Sources.add(source)
  }
  const encoder = new TextEncoder()
  for (const source of base64Sources) {
    for (const encoded of base64Forms(encoder.encode(source.toWellFormed()))) {
      forms.add(encoded)
      forms.add(jsonEscape(encoded, SLASH_JSON))
    }
  }
  return [...forms].filter((form) => form.length >= MIN_FORM_LENGTH).sort((a, b) => b.length - a.length)
}
