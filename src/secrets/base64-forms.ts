// Base64 forms of a secret. Inside a longer encoded run (a Basic auth header, a data: URL, a JSON
// body someone base64-encoded) the secret's bytes start at offset 0, 1 or 2 modulo 3, and the
// characters at its edges mix in bits of the neighbouring bytes. The characters whose six bits all
// come from the secret are the same whatever surrounds it; those are the substrings to scrub.

function toBase64Url(base64: string): string {
  return base64.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/**
 * The characters of the encoding that depend only on `bytes`, when `bytes` starts `alignment`
 * bytes into a 3-byte group of a longer run.
 */
export function alignedBase64Core(bytes: Uint8Array, alignment: 0 | 1 | 2): string {
  const padded = new Uint8Array(alignment + bytes.length)
  padded.set(bytes, alignment)
  const encoded = Buffer.from(padded).toString('base64')
  // Character k holds bits [6k, 6k+6); the secret holds bits [8*alignment, 8*(alignment+length)).
  const first = Math.ceil((8 * alignment) / 6)
  const end = Math.floor((8 * (alignment + bytes.length)) / 6)
  return encoded.slice(first, end)
}

/** Standard and URL-safe base64 forms of `bytes`: alone (with and without padding) and at each alignment. */
export function base64Forms(bytes: Uint8Array): string[] {
  const whole = Buffer.from(bytes).toString('base64')
  const forms = [whole, whole.replace(/=+$/, ''), toBase64Url(whole)]
  for (const alignment of [0, 1, 2] as const) {
    const core = alignedBase64Core(bytes, alignment)
    forms.push(core, toBase64Url(core))
  }
  return forms
}
