// The scrubber: a pure leaf that every output path calls before bytes leave a run or the agent.
// Built once per run from the secret values in play; every value becomes all the forms it can take
// (see secret-forms.ts), and one pass over the input replaces every range any form covers.

import { createByteScrubSession } from './byte-scrub-session.ts'
import { createIntervalMerger } from './interval-merger.ts'
import { buildPatternIndex, type PatternIndex, WINDOW_UNITS } from './pattern-index.ts'
import { scanText } from './scan.ts'
import { secretForms } from './secret-forms.ts'

/** Replaces every secret, whatever its length, so the output does not tell how long it was. */
export const SCRUBBED = '*********'

export interface Scrubber {
  text(s: string): string
  /** Scrubs raw bytes (UTF-8 text or binary) without decoding them; returns a new array. */
  bytes(b: Uint8Array): Uint8Array
  /** Output equals `bytes()` of the whole input, however the input is split into chunks. */
  stream(): TransformStream<Uint8Array, Uint8Array>
}

export interface SecretScrubber extends Scrubber {
  /** A scrubber for these secrets and the new ones, e.g. a value a check assigned during its run. */
  withSecrets(values: Iterable<string>): SecretScrubber
  /** How many distinct forms are being looked for (for metrics and the bench). */
  readonly formCount: number
}

export interface ScrubberOptions {
  /** Defaults to SCRUBBED. */
  marker?: string
}

/** Values shorter than this (in characters) are too likely to occur by chance to be replaced. */
export const MIN_SECRET_LENGTH = 4

/** Why a value is not scrubbed, or undefined when it is. */
export function unscrubbableReason(value: string, marker = SCRUBBED): string | undefined {
  if (value.length === 0) return 'it is empty'
  if ([...value].length < MIN_SECRET_LENGTH) return `it is shorter than ${MIN_SECRET_LENGTH} characters`
  // Scrubbing runs of blanks would mangle every indented document and hide nothing.
  if (value.trim().length === 0) return 'it is only whitespace'
  if (marker.includes(value)) return 'it is part of the marker that replaces secrets'
  return undefined
}

function scrubText(s: string, index: PatternIndex<string>, marker: string): string {
  if (index.size === 0 || s.length < WINDOW_UNITS) return s
  let out = ''
  let emitted = 0
  const merger = createIntervalMerger((start, end) => {
    out += s.slice(emitted, start) + marker
    emitted = end
  })
  scanText(s, 0, s.length, index, merger.add)
  merger.close()
  return emitted === 0 ? s : out + s.slice(emitted)
}

export function createScrubber(
  secretValues: Iterable<string>,
  options: ScrubberOptions = {},
): SecretScrubber {
  return buildScrubber(new Map(), secretValues, options)
}

/** `known` holds the forms of values already in play, so adding a secret mid-run costs only its own forms. */
function buildScrubber(
  known: ReadonlyMap<string, readonly string[]>,
  added: Iterable<string>,
  options: ScrubberOptions,
): SecretScrubber {
  const marker = options.marker ?? SCRUBBED
  const formsByValue = new Map(known)
  for (const value of added) {
    if (!formsByValue.has(value) && unscrubbableReason(value, marker) === undefined) {
      formsByValue.set(value, secretForms(value))
    }
  }
  const forms = [...new Set([...formsByValue.values()].flat())]
  const textIndex = buildPatternIndex(forms, (form, i) => form.charCodeAt(i))
  // Built on first use: many scrubbers only ever see text.
  let byteIndex: PatternIndex<Uint8Array> | undefined
  const encoder = new TextEncoder()
  const markerBytes = encoder.encode(marker)
  const bytesIndex = (): PatternIndex<Uint8Array> => {
    byteIndex ??= buildPatternIndex(
      [...new Set(forms.map((form) => form.toWellFormed()))].map((form) => encoder.encode(form)),
      (form, i) => form[i]!,
    )
    return byteIndex
  }
  const scrubber: SecretScrubber = {
    text: (s) => scrubText(s, textIndex, marker),
    bytes: (b) => createByteScrubSession(bytesIndex(), markerBytes).finish(b),
    stream: () => {
      const session = createByteScrubSession(bytesIndex(), markerBytes)
      return new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const out = session.push(chunk)
          if (out.length > 0) controller.enqueue(out)
        },
        flush(controller) {
          const out = session.finish()
          if (out.length > 0) controller.enqueue(out)
        },
      })
    },
    withSecrets: (more) => {
      const fresh = [...more].filter(
        (v) => !formsByValue.has(v) && unscrubbableReason(v, marker) === undefined,
      )
      return fresh.length === 0 ? scrubber : buildScrubber(formsByValue, fresh, options)
    },
    formCount: forms.length,
  }
  return scrubber
}
