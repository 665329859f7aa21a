import { describe, expect, it } from 'vitest'
import { MAX_RANGE_LENGTH } from '../../src/secrets/interval-merger.ts'
import { createScrubber, MIN_SECRET_LENGTH, SCRUBBED } from '../../src/secrets/scrubber.ts'
import { secretForms } from '../../src/secrets/secret-forms.ts'
import { base64Recovers, fromUtf8, scrubChunks, splitAt, utf8 } from './stream-helpers.ts'

const SPECIAL = `p@ss w/rd "q" \\ <&> 'x' !*()~ é中😀`

/** Scrubs through all three paths and checks they agree before returning the text result. */
async function scrubAll(secrets: string[], input: string): Promise<string> {
  const scrubber = createScrubber(secrets)
  const text = scrubber.text(input)
  expect(fromUtf8(scrubber.bytes(utf8(input)))).toBe(text)
  expect(fromUtf8(await scrubChunks(scrubber, splitAt(utf8(input), [3, 1, 7, 2])))).toBe(text)
  return text
}

function htmlEscape(s: string, apostrophe: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", apostrophe)
}

/** JSON as Python's json.dumps writes it: non-ASCII as \uXXXX of UTF-16 code units. */
function asciiJson(s: string, upper: boolean): string {
  return JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0')
    return `\\u${upper ? hex.toUpperCase() : hex}`
  })
}

describe('createScrubber', () => {
  it('replaces the raw value with one marker whatever the secret length', async () => {
    const out = await scrubAll(
      ['abcd', 'a-much-longer-secret-value-0123456789'],
      'x abcd y a-much-longer-secret-value-0123456789 z',
    )
    expect(out).toBe(`x ${SCRUBBED} y ${SCRUBBED} z`)
  })

  it('passes text without secrets through unchanged', async () => {
    const input = 'GET /api?x=1 {"a":"b"} <p>&amp;</p> é中😀 \u0000\n'
    expect(await scrubAll([SPECIAL, 'sk_live_0123456789'], input)).toBe(input)
  })

  it.each([
    ['encodeURIComponent', encodeURIComponent(SPECIAL)],
    [
      "encodeURIComponent with !'()* escaped",
      encodeURIComponent(SPECIAL).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    ],
    ['lower-case hex', encodeURIComponent(SPECIAL).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
    ['form encoding (URLSearchParams)', new URLSearchParams({ k: SPECIAL }).toString().slice(2)],
    ['encodeURIComponent with + for space', encodeURIComponent(SPECIAL).replaceAll('%20', '+')],
    [
      'a URL path built by new URL()',
      new URL(`https://h.test/${SPECIAL.replaceAll(/[/?#\\]/g, '')}`).pathname.slice(1),
    ],
  ])('scrubs the %s form', async (_name, form) => {
    const scrubber = createScrubber([SPECIAL, SPECIAL.replaceAll(/[/?#\\]/g, '')])
    const input = `https://h.test/x?a=${form}&b=1`
    expect(scrubber.text(input)).toBe(`https://h.test/x?a=${SCRUBBED}&b=1`)
    expect(fromUtf8(scrubber.bytes(utf8(input)))).toBe(`https://h.test/x?a=${SCRUBBED}&b=1`)
  })

  it('scrubs a secret in a URL that is itself a query parameter, and in JSON carried in one', async () => {
    const redirect = `https://h.test/login?next=${encodeURIComponent(`https://h.test/cb?token=${encodeURIComponent(SPECIAL)}`)}`
    expect(await scrubAll([SPECIAL], redirect)).toBe(
      `https://h.test/login?next=${encodeURIComponent('https://h.test/cb?token=')}${SCRUBBED}`,
    )
    const state = new URLSearchParams({ state: JSON.stringify({ pw: SPECIAL }) }).toString()
    expect(await scrubAll([SPECIAL], state)).toBe(
      `${new URLSearchParams({ state: '{"pw":"' }).toString()}${SCRUBBED}${encodeURIComponent('"}')}`,
    )
  })

  it('scrubs a whole form body as URLSearchParams writes it', async () => {
    const body = new URLSearchParams({ user: 'me', password: SPECIAL, next: '/home' }).toString()
    const out = await scrubAll([SPECIAL], body)
    expect(out).toBe(`user=me&password=${SCRUBBED}&next=%2Fhome`)
  })

  it.each([
    ['JSON.stringify', JSON.stringify(SPECIAL)],
    ['\\u escapes, lower-case', asciiJson(SPECIAL, false)],
    ['\\u escapes, upper-case', asciiJson(SPECIAL, true)],
    ['\\/ for /', JSON.stringify(SPECIAL).replaceAll('/', '\\/')],
  ])('scrubs the JSON form: %s', async (_name, literal) => {
    const out = await scrubAll([SPECIAL], `{"password":${literal},"n":1}`)
    expect(out).toBe(`{"password":"${SCRUBBED}","n":1}`)
  })

  it('scrubs a JSON body recorded as a string inside JSON (a trace entry)', async () => {
    const entry = JSON.stringify({ postData: JSON.stringify({ password: SPECIAL }) })
    const out = await scrubAll([SPECIAL], entry)
    expect(JSON.parse(JSON.parse(out).postData)).toEqual({ password: SCRUBBED })
  })

  it.each([
    ['&#39;', htmlEscape(SPECIAL, '&#39;')],
    ['&#x27;', htmlEscape(SPECIAL, '&#x27;')],
  ])('scrubs the HTML-escaped form with %s', async (_name, html) => {
    const out = await scrubAll([SPECIAL], `<td title="${html}">${html}</td>`)
    expect(out).toBe(`<td title="${SCRUBBED}">${SCRUBBED}</td>`)
  })

  it('scrubs base64 and base64url at every alignment inside a longer run', async () => {
    const scrubber = createScrubber([SPECIAL])
    for (let before = 0; before < 6; before++) {
      for (let after = 0; after < 6; after++) {
        const blob = Buffer.concat([
          Buffer.alloc(before, 0x41),
          Buffer.from(SPECIAL),
          Buffer.alloc(after, 0x7a),
        ])
        for (const encoding of ['base64', 'base64url'] as const) {
          const encoded = blob.toString(encoding)
          expect(base64Recovers(encoded, SPECIAL)).toBe(true)
          const out = scrubber.text(`data:${encoded};`)
          expect(out).toContain(SCRUBBED)
          expect(base64Recovers(out, SPECIAL)).toBe(false)
        }
      }
    }
  })

  it('scrubs a Basic authorization header holding the secret', async () => {
    const header = `Authorization: Basic ${btoa('service:hunter2-password')}`
    const out = await scrubAll(['hunter2-password'], header)
    expect(out).toContain(SCRUBBED)
    expect(base64Recovers(out, 'hunter2-password')).toBe(false)
  })

  it('scrubs non-ASCII values in either Unicode normalisation', async () => {
    const nfc = 'Pässwörd-ñ'.normalize('NFC')
    const out = await scrubAll([nfc], `a ${nfc} b ${nfc.normalize('NFD')} c`)
    expect(out).toBe(`a ${SCRUBBED} b ${SCRUBBED} c`)
  })

  it('ignores empty values and values shorter than the minimum', async () => {
    const short = 'x'.repeat(MIN_SECRET_LENGTH - 1)
    const scrubber = createScrubber(['', short])
    expect(scrubber.text(`a ${short} b`)).toBe(`a ${short} b`)
    expect(scrubber.formCount).toBe(0)
    // Four characters of which some are astral still count as four characters.
    expect(createScrubber(['ab😀c']).text('ab😀c!')).toBe(`${SCRUBBED}!`)
  })

  it('replaces overlapping and adjacent secrets with one marker, leaving no tail behind', async () => {
    expect(await scrubAll(['abcdef12', 'ef12ghij'], '<abcdef12ghij>')).toBe(`<${SCRUBBED}>`)
    expect(await scrubAll(['abcdef12', 'ghijklmn'], '<abcdef12ghijklmn>')).toBe(`<${SCRUBBED}>`)
    expect(await scrubAll(['abcdef12'], '<abcdef12 abcdef12>')).toBe(`<${SCRUBBED} ${SCRUBBED}>`)
  })

  it('withSecrets adds values and leaves the original scrubber as it was', () => {
    const first = createScrubber(['first-secret'])
    const second = first.withSecrets(['second-secret'])
    const input = 'first-secret second-secret'
    expect(first.text(input)).toBe(`${SCRUBBED} second-secret`)
    expect(second.text(input)).toBe(`${SCRUBBED} ${SCRUBBED}`)
    // Nothing new to scrub (known, empty or too short): the same scrubber, nothing rebuilt.
    expect(second.withSecrets(['first-secret', '', 'abc'])).toBe(second)
  })

  it('scrubs bytes that are not UTF-8 without altering the rest', () => {
    const scrubber = createScrubber(['secret-value'])
    const binary = new Uint8Array([0xff, 0xfe, 0x00, 0x80, ...utf8('secret-value'), 0xc3, 0x28, 0x89])
    expect([...scrubber.bytes(binary)]).toEqual([0xff, 0xfe, 0x00, 0x80, ...utf8(SCRUBBED), 0xc3, 0x28, 0x89])
    const noSecret = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x89, 0xf0, 0x9f])
    const out = scrubber.bytes(noSecret)
    expect([...out]).toEqual([...noSecret])
    expect(out).not.toBe(noSecret)
  })

  it('finds a secret split across every possible chunk boundary', async () => {
    const secret = 'sécret-中-value'
    const scrubber = createScrubber([secret])
    const input = utf8(`head ${secret} tail ${encodeURIComponent(secret)} end`)
    const expected = `head ${SCRUBBED} tail ${SCRUBBED} end`
    for (let cut = 0; cut <= input.length; cut++) {
      expect(fromUtf8(await scrubChunks(scrubber, splitAt(input, [cut])))).toBe(expected)
    }
    expect(fromUtf8(await scrubChunks(scrubber, splitAt(input, Array(input.length).fill(1))))).toBe(expected)
  })

  it('finds the longest form of a secret split at every boundary, so a stream holds back enough', async () => {
    const longest = secretForms(SPECIAL)[0]!
    const scrubber = createScrubber([SPECIAL])
    const input = utf8(`<${longest}>`)
    for (let cut = 0; cut <= input.length; cut++) {
      expect(fromUtf8(await scrubChunks(scrubber, splitAt(input, [cut, 1, cut])))).toBe(`<${SCRUBBED}>`)
    }
  })

  it('uses a marker given in the options', () => {
    expect(createScrubber(['abcdef'], { marker: '[secret]' }).text('x abcdef y')).toBe('x [secret] y')
  })

  it('does not scrub a value the marker itself contains', () => {
    expect(createScrubber(['****']).text('a****b')).toBe('a****b')
  })
})

describe('a long run of overlapping matches', () => {
  it('is cut into ranges of bounded length, identically in text, bytes and streams, covering every unit', async () => {
    const scrubber = createScrubber(['AAAA'])
    const run = 'A'.repeat(MAX_RANGE_LENGTH * 2 + 100)
    const input = `x${run}y`
    const text = scrubber.text(input)
    expect(text).toBe(`x${SCRUBBED}${SCRUBBED}${SCRUBBED}y`)
    expect(fromUtf8(scrubber.bytes(utf8(input)))).toBe(text)
    expect(fromUtf8(await scrubChunks(scrubber, splitAt(utf8(input), Array(200).fill(997))))).toBe(text)
  })
})
