// Percent-encodings a secret takes on its way into a URL or a form body. Each encoder a program
// might use leaves a different set of ASCII characters unescaped, so each yields a different form.

/** One way of percent-encoding: which printable ASCII characters stay as they are, and how space is written. */
export interface PercentEncoding {
  readonly name: string
  /** Printable ASCII characters (besides letters and digits) left unescaped. */
  readonly keep: string
  readonly spaceAsPlus: boolean
  /** Common enough that its output is also worth scrubbing in base64. */
  readonly base64Source?: boolean
}

const ALL_PRINTABLE = ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'

/** Every printable ASCII punctuation character except those in `escaped`. */
function allExcept(escaped: string): string {
  return [...ALL_PRINTABLE].filter((c) => c !== ' ' && !escaped.includes(c)).join('')
}

// The WHATWG URL standard's percent-encode sets (what `new URL()` and `fetch()` do to a path or query).
const FRAGMENT_SET = ' "<>`'
const QUERY_SET = ' "#<>'
const SPECIAL_QUERY_SET = `${QUERY_SET}'`
const PATH_SET = `${QUERY_SET}?\`{}`
const USERINFO_SET = `${PATH_SET}/:;=@[\\]^|`

export const URI_COMPONENT: PercentEncoding = {
  name: 'encodeURIComponent',
  keep: "-_.!~*'()",
  spaceAsPlus: false,
  base64Source: true,
}

export const FORM_URLENCODED: PercentEncoding = {
  name: 'application/x-www-form-urlencoded (URLSearchParams)',
  keep: '*-._',
  spaceAsPlus: true,
  base64Source: true,
}

export const PERCENT_ENCODINGS: readonly PercentEncoding[] = [
  URI_COMPONENT,
  { name: 'encodeURIComponent, + for space', keep: "-_.!~*'()", spaceAsPlus: true },
  { name: "RFC 3986 unreserved (!'()* escaped)", keep: '-_.~', spaceAsPlus: false },
  { name: "RFC 3986 unreserved (!'()* escaped), + for space", keep: '-_.~', spaceAsPlus: true },
  FORM_URLENCODED,
  { name: 'encodeURI', keep: "-_.!~*'();/?:@&=+$,#", spaceAsPlus: false },
  { name: 'WHATWG URL path', keep: allExcept(PATH_SET), spaceAsPlus: false },
  { name: 'WHATWG URL query', keep: allExcept(QUERY_SET), spaceAsPlus: false },
  { name: 'WHATWG URL special query', keep: allExcept(SPECIAL_QUERY_SET), spaceAsPlus: false },
  { name: 'WHATWG URL userinfo', keep: allExcept(USERINFO_SET), spaceAsPlus: false },
  { name: 'WHATWG URL fragment', keep: allExcept(FRAGMENT_SET), spaceAsPlus: false },
]

const HEX_UPPER = '0123456789ABCDEF'
const HEX_LOWER = '0123456789abcdef'

function isAsciiAlphanumeric(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
}

/** Percent-encodes the UTF-8 bytes of `value`; `lowerHex` gives `%2f` where most encoders write `%2F`. */
export function percentEncode(value: string, encoding: PercentEncoding, lowerHex: boolean): string {
  const hex = lowerHex ? HEX_LOWER : HEX_UPPER
  const bytes = new TextEncoder().encode(value)
  let out = ''
  for (const byte of bytes) {
    if (isAsciiAlphanumeric(byte)) out += String.fromCharCode(byte)
    else if (byte === 0x20 && encoding.spaceAsPlus) out += '+'
    else if (byte > 0x20 && byte < 0x7f && encoding.keep.includes(String.fromCharCode(byte)))
      out += String.fromCharCode(byte)
    else out += `%${hex[byte >> 4]}${hex[byte & 15]}`
  }
  return out
}
