// The scrubber: a pure leaf that every output path calls before bytes leave a run or the agent.
// This first version replaces raw values only; encoded forms arrive with the secrets issue.

export const SCRUBBED = '*********'

export interface Scrubber {
  text(s: string): string
  bytes(b: Uint8Array): Uint8Array
  stream(): TransformStream<Uint8Array, Uint8Array>
}

/** Values shorter than this are too likely to occur by chance to be replaced. */
export const MIN_SECRET_LENGTH = 4

export function createScrubber(secretValues: Iterable<string>): Scrubber {
  const values = [...new Set([...secretValues].filter((v) => v.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  )
  const text = (s: string): string => {
    let out = s
    for (const v of values) if (out.includes(v)) out = out.split(v).join(SCRUBBED)
    return out
  }
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  const bytes = (b: Uint8Array): Uint8Array => encoder.encode(text(decoder.decode(b)))
  const longest = values[0]?.length ?? 0
  const stream = (): TransformStream<Uint8Array, Uint8Array> => {
    // Keep a tail as long as the longest secret so a value split across chunks is still found.
    let carry = ''
    const streamDecoder = new TextDecoder()
    return new TransformStream({
      transform(chunk, controller) {
        const joined = text(carry + streamDecoder.decode(chunk, { stream: true }))
        const keep = Math.min(joined.length, Math.max(0, longest - 1))
        carry = joined.slice(joined.length - keep)
        const emit = joined.slice(0, joined.length - keep)
        if (emit) controller.enqueue(encoder.encode(emit))
      },
      flush(controller) {
        const rest = text(carry + streamDecoder.decode())
        if (rest) controller.enqueue(encoder.encode(rest))
      },
    })
  }
  return { text, bytes, stream }
}
