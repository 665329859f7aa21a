// Property tests over random secrets (punctuation, control characters, non-ASCII, astral and
// combining characters), every form, random surrounding text and random stream chunking.
// The marker here is NUL, which no generated text or secret contains, so "no form survives" can
// be checked exactly even for secrets made of the default marker's asterisks.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createScrubber, unscrubbableReason } from '../../src/secrets/scrubber.ts'
import { secretForms } from '../../src/secrets/secret-forms.ts'
import { base64Recovers, fromUtf8, scrubChunks, splitAt, utf8 } from './stream-helpers.ts'

const MARKER = '\u0000'
const options = { marker: MARKER }

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const PUNCTUATION = ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'
const OTHER = [
  '\n',
  '\t',
  '\u007f',
  'é',
  'ü',
  'ß',
  'Æ',
  '€',
  '中',
  '文',
  '\u00a0',
  '\u2028',
  'e\u0301',
  '😀',
  '🔑',
  '𝄞',
]

const secretChar = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ALNUM) },
  { weight: 2, arbitrary: fc.constantFrom(...PUNCTUATION) },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER) },
)
// Whitespace-only values are refused by design (unscrubbableReason); every other value must be scrubbed.
const secretArb = fc
  .string({ unit: secretChar, minLength: 4, maxLength: 24 })
  .filter((s) => unscrubbableReason(s, MARKER) === undefined)
const secretsArb = fc.uniqueArray(secretArb, { minLength: 1, maxLength: 4 })
const textArb = fc.string({ unit: secretChar, maxLength: 60 })
const chunkSizesArb = fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 30 })

function strictUriComponent(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

function htmlEscape(s: string, apostrophe: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", apostrophe)
}

function unicodeEscapedJson(s: string, upper: boolean): string {
  return JSON.stringify(s)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (c) => {
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0')
      return `\\u${upper ? hex.toUpperCase() : hex}`
    })
}

/** The textual forms of a secret, computed here with platform encoders, independently of src/. */
function textualForms(secret: string): Record<string, string> {
  const lower = (s: string) => s.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())
  return {
    raw: secret,
    encodeURIComponent: encodeURIComponent(secret),
    "!'()* escaped": strictUriComponent(secret),
    'lower-case hex': lower(encodeURIComponent(secret)),
    "lower-case hex, !'()* escaped": lower(strictUriComponent(secret)),
    'form (URLSearchParams)': new URLSearchParams({ k: secret }).toString().slice(2),
    '+ for space': encodeURIComponent(secret).replaceAll('%20', '+'),
    'JSON.stringify': JSON.stringify(secret).slice(1, -1),
    'JSON \\/': JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/'),
    'JSON \\u lower': unicodeEscapedJson(secret, false),
    'JSON \\u upper': unicodeEscapedJson(secret, true),
    'JSON inside JSON': JSON.stringify(JSON.stringify(secret)).slice(1, -1),
    'encodeURIComponent twice': encodeURIComponent(encodeURIComponent(secret)),
    'JSON in a form field': new URLSearchParams({ k: JSON.stringify(secret) }).toString().slice(5, -3),
    'HTML &#39;': htmlEscape(secret, '&#39;'),
    'HTML &#x27;': htmlEscape(secret, '&#x27;'),
  }
}

const formNameArb = fc.constantFrom(...Object.keys(textualForms('abcd')))

describe('scrubber properties', () => {
  it('no textual form of any secret survives, in text, bytes or a chunked stream', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretsArb,
        fc.array(fc.tuple(textArb, fc.nat(), formNameArb), { minLength: 1, maxLength: 6 }),
        textArb,
        chunkSizesArb,
        async (secrets, pieces, tail, chunkSizes) => {
          const scrubber = createScrubber(secrets, options)
          const input =
            pieces
              .map(([before, i, form]) => before + textualForms(secrets[i % secrets.length]!)[form])
              .join('') + tail
          const text = scrubber.text(input)
          for (const secret of secrets) {
            for (const [name, form] of Object.entries(textualForms(secret))) {
              expect(text.includes(form), `${name} form of ${JSON.stringify(secret)} survived`).toBe(false)
            }
          }
          expect(fromUtf8(scrubber.bytes(utf8(input)))).toBe(text)
          expect(fromUtf8(await scrubChunks(scrubber, splitAt(utf8(input), chunkSizes)))).toBe(text)
        },
      ),
    )
  })

  it('no secret can be read back from base64 or base64url at any alignment', () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.uint8Array({ maxLength: 8 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.constantFrom('base64', 'base64url') as fc.Arbitrary<'base64' | 'base64url'>,
        textArb,
        (secret, before, after, encoding, around) => {
          const blob = Buffer.concat([before, utf8(secret), after]).toString(encoding)
          const input = `${around}${blob}${around}`
          expect(base64Recovers(input, secret)).toBe(true)
          expect(base64Recovers(createScrubber([secret], options).text(input), secret)).toBe(false)
        },
      ),
    )
  })

  it('text holding no form of any secret comes through unchanged, also as bytes and as a stream', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretsArb,
        fc.string({ maxLength: 200 }),
        chunkSizesArb,
        async (secrets, input, sizes) => {
          fc.pre(!secrets.some((secret) => secretForms(secret).some((form) => input.includes(form))))
          const scrubber = createScrubber(secrets, options)
          expect(scrubber.text(input)).toBe(input)
          const bytes = utf8(input)
          expect(scrubber.bytes(bytes)).toEqual(bytes)
          expect(await scrubChunks(scrubber, splitAt(bytes, sizes))).toEqual(bytes)
        },
      ),
    )
  })

  it('binary data holding no form of any secret comes through byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretsArb,
        fc.uint8Array({ maxLength: 300 }),
        chunkSizesArb,
        async (secrets, bytes, sizes) => {
          const data = Buffer.from(bytes)
          fc.pre(
            !secrets.some((secret) =>
              secretForms(secret).some((form) => data.includes(Buffer.from(utf8(form.toWellFormed())))),
            ),
          )
          const scrubber = createScrubber(secrets, options)
          expect(scrubber.bytes(bytes)).toEqual(bytes)
          expect(await scrubChunks(scrubber, splitAt(bytes, sizes))).toEqual(bytes)
        },
      ),
    )
  })

  it('stream output equals text() output for any chunking, with forms split across chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretsArb,
        fc.array(fc.oneof(textArb, fc.tuple(fc.nat(), fc.nat())), { maxLength: 12 }),
        chunkSizesArb,
        async (secrets, parts, sizes) => {
          // Any form, the longest included (it sets how much a stream holds back); forms back to
          // back and overlapping exercise the merging of matched ranges.
          const input = parts
            .map((part) => {
              if (typeof part === 'string') return part
              const forms = secretForms(secrets[part[0] % secrets.length]!)
              return part[1] % 3 === 0 ? forms[0]! : forms[part[1] % forms.length]!
            })
            .join('')
          const scrubber = createScrubber(secrets, options)
          const expected = utf8(scrubber.text(input))
          expect(await scrubChunks(scrubber, splitAt(utf8(input), sizes))).toEqual(expected)
          expect(await scrubChunks(scrubber, splitAt(utf8(input), [1, 1, 1, 1, 1, 1, 1]))).toEqual(expected)
        },
      ),
    )
  })

  it('withSecrets scrubs the old and the new values', () => {
    fc.assert(
      fc.property(secretArb, secretArb, textArb, (first, second, around) => {
        const scrubber = createScrubber([first], options).withSecrets([second])
        const out = scrubber.text(`${around}${first}${around}${encodeURIComponent(second)}${around}`)
        expect(out.includes(first)).toBe(false)
        expect(out.includes(encodeURIComponent(second))).toBe(false)
      }),
    )
  })
})
