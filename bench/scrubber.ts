// bench/scrubber: scrubs 10 MB of trace-like text holding 100 secrets in all their forms, and
// compares the one-pass scrubber with a naive loop of replaceAll over the same forms, measured in
// the same run. Targets (issue 6): at least 200 MB/s and at least 20x the naive loop.
//
// Usage: bench/scrubber [--mb 10] [--secrets 100] [--runs 5]

import { parseArgs } from 'node:util'
import { createScrubber, SCRUBBED, type SecretScrubber } from '../src/secrets/scrubber.ts'
import { secretForms } from '../src/secrets/secret-forms.ts'

const TARGET_MB_PER_S = 200
const TARGET_RATIO = 20

interface Random {
  next(): number
  int(below: number): number
  pick<T>(items: readonly T[]): T
}

function seededRandom(seed: number): Random {
  let state = seed >>> 0 || 1
  const next = () => {
    // xorshift32: deterministic, so every run scrubs the same corpus
    state ^= state << 13
    state >>>= 0
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    return state / 0x100000000
  }
  const int = (below: number) => Math.floor(next() * below)
  return { next, int, pick: (items) => items[int(items.length)]! }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const WORDS = `${ALNUM}    `
const SPECIAL = ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'
const NON_ASCII = 'éüßøñçåÆ€£¥中文字😀🔑ğıłść'

function randomString(random: Random, length: number, alphabet: string): string {
  const chars = [...alphabet]
  let out = ''
  for (let i = 0; i < length; i++) out += random.pick(chars)
  return out
}

/** Mostly API-key-like tokens, some passwords with punctuation, some with non-ASCII letters too. */
function makeSecrets(random: Random, count: number): string[] {
  const secrets: string[] = []
  for (let i = 0; i < count; i++) {
    const kind = i % 5
    if (kind <= 2) secrets.push(`sk_${randomString(random, 20 + random.int(20), ALNUM)}`)
    else if (kind === 3) secrets.push(randomString(random, 12 + random.int(12), ALNUM + SPECIAL))
    else secrets.push(randomString(random, 10 + random.int(10), ALNUM + SPECIAL + NON_ASCII))
  }
  return secrets
}

function base64Blob(random: Random, bytes: number, inner?: string): string {
  const before = Buffer.from(randomString(random, random.int(3) + bytes, ALNUM))
  const after = Buffer.from(randomString(random, bytes, ALNUM))
  const middle = inner === undefined ? Buffer.alloc(0) : Buffer.from(inner)
  return Buffer.concat([before, middle, after]).toString('base64')
}

function htmlEscape(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

/** One line of a Playwright-trace-like NDJSON file; about one in eight carries a secret in some form. */
function traceLine(random: Random, secrets: readonly string[], n: number): string {
  const secret = random.next() < 0.125 ? random.pick(secrets) : undefined
  const time = (n * 13.7).toFixed(3)
  const path = `/api/v1/items/${random.int(100000)}`
  switch (n % 6) {
    case 0: {
      const query = secret === undefined ? `page=${random.int(50)}` : `token=${encodeURIComponent(secret)}`
      return JSON.stringify({
        type: 'before',
        callId: `call@${n}`,
        startTime: time,
        apiName: 'page.goto',
        params: { url: `https://app.example.test${path}?${query}`, waitUntil: 'load' },
      })
    }
    case 1: {
      const body =
        secret === undefined
          ? JSON.stringify({ item: random.int(1000), note: randomString(random, 40, WORDS) })
          : JSON.stringify({ user: 'svc', password: secret })
      return JSON.stringify({
        type: 'resource-snapshot',
        snapshot: {
          request: {
            method: 'POST',
            url: `https://app.example.test${path}`,
            headers: [
              { name: 'content-type', value: 'application/json' },
              {
                name: 'authorization',
                value: `Basic ${base64Blob(random, 0, secret === undefined ? 'user:pass' : `svc:${secret}`)}`,
              },
            ],
            postData: { mimeType: 'application/json', text: body },
          },
        },
      })
    }
    case 2: {
      const form = new URLSearchParams({ grant_type: 'client_credentials', client_secret: secret ?? 'none' })
      return JSON.stringify({ type: 'log', time, message: `POST /oauth/token body=${form}` })
    }
    case 3: {
      const cell = secret === undefined ? randomString(random, 30, WORDS) : secret
      return JSON.stringify({
        type: 'frame-snapshot',
        html: `<html><body><table><tr><td class="v">${htmlEscape(cell)}</td></tr></table></body></html>`,
      })
    }
    case 4:
      return JSON.stringify({
        type: 'screencast-frame',
        sha1: `page@${n}.jpeg`,
        data: base64Blob(random, 600),
      })
    default: {
      const data = base64Blob(random, 40, secret)
      return JSON.stringify({
        type: 'event',
        time,
        method: 'Network.dataReceived',
        params: { data: random.next() < 0.5 ? data : Buffer.from(data, 'base64').toString('base64url') },
      })
    }
  }
}

function makeCorpus(random: Random, secrets: readonly string[], megabytes: number): string {
  const target = megabytes * 1_000_000
  const lines: string[] = []
  let length = 0
  for (let n = 0; length < target; n++) {
    const line = traceLine(random, secrets, n)
    lines.push(line)
    length += line.length + 1
  }
  return lines.join('\n')
}

function naiveScrub(text: string, forms: readonly string[]): string {
  let out = text
  for (const form of forms) out = out.replaceAll(form, SCRUBBED)
  return out
}

async function scrubStream(scrubber: SecretScrubber, input: Uint8Array, chunkSize: number): Promise<number> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < input.length; i += chunkSize) controller.enqueue(input.subarray(i, i + chunkSize))
      controller.close()
    },
  })
  let total = 0
  for await (const chunk of source.pipeThrough(scrubber.stream())) total += chunk.length
  return total
}

async function timeBest(runs: number, work: () => unknown): Promise<number> {
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await work()
    best = Math.min(best, performance.now() - start)
  }
  return best
}

async function main() {
  const { values } = parseArgs({
    options: {
      mb: { type: 'string', default: '10' },
      secrets: { type: 'string', default: '100' },
      runs: { type: 'string', default: '5' },
    },
  })
  const random = seededRandom(20251122)
  const secrets = makeSecrets(random, Number(values.secrets))
  const corpus = makeCorpus(random, secrets, Number(values.mb))
  const corpusBytes = new TextEncoder().encode(corpus)
  const megabytes = corpusBytes.length / 1_000_000
  const runs = Number(values.runs)

  const buildStart = performance.now()
  const scrubber = createScrubber(secrets)
  const buildMs = performance.now() - buildStart
  const forms = [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length)

  // Warm up the one-pass paths so the JIT has compiled the loops before timing.
  scrubber.text(corpus.slice(0, 1_000_000))
  scrubber.bytes(corpusBytes.subarray(0, 1_000_000))

  const naiveStart = performance.now()
  const naiveOut = naiveScrub(corpus, forms)
  const naiveMs = performance.now() - naiveStart
  let fastOut = ''
  const textMs = await timeBest(runs, () => {
    fastOut = scrubber.text(corpus)
  })
  const bytesMs = await timeBest(runs, () => scrubber.bytes(corpusBytes))
  const streamMs = await timeBest(runs, () => scrubStream(scrubber, corpusBytes, 64 * 1024))
  // The worst case: a 4-character secret makes every position a candidate start.
  const withShort = scrubber.withSecrets(['q7z!'])
  withShort.text(corpus.slice(0, 1_000_000))
  const shortMs = await timeBest(runs, () => withShort.text(corpus))
  const shortBytesMs = await timeBest(runs, () => withShort.bytes(corpusBytes))

  const leftovers = secrets.filter((secret) => fastOut.includes(secret)).length
  const rate = (ms: number) => megabytes / (ms / 1000)
  const naiveRate = rate(naiveMs)
  const row = (name: string, ms: number) => {
    const ratio = rate(ms) / naiveRate
    const ok = rate(ms) >= TARGET_MB_PER_S && ratio >= TARGET_RATIO ? 'ok' : 'BELOW TARGET'
    return `${name.padEnd(28)} ${rate(ms).toFixed(1).padStart(8)} MB/s  ${ratio.toFixed(1).padStart(7)}x naive  ${ok}`
  }
  console.log(`corpus: ${megabytes.toFixed(2)} MB of trace-like NDJSON, ${secrets.length} secrets`)
  console.log(`forms scrubbed: ${forms.length} (built in ${buildMs.toFixed(1)} ms)`)
  console.log(
    `scrubbing shortened the text by ${corpus.length - fastOut.length} characters; raw secrets left: ${leftovers}`,
  )
  console.log(`one-pass output equals naive output: ${fastOut === naiveOut ? 'yes' : 'NO'}`)
  console.log(
    `${'naive replaceAll per form'.padEnd(28)} ${naiveRate.toFixed(1).padStart(8)} MB/s  (baseline, 1 run)`,
  )
  console.log(row('scrubber.text()', textMs))
  console.log(row('scrubber.bytes()', bytesMs))
  console.log(row('scrubber.stream() 64 KiB', streamMs))
  console.log(row('text(), + a 4-char secret', shortMs))
  console.log(row('bytes(), + a 4-char secret', shortBytesMs))
  console.log(`targets: >= ${TARGET_MB_PER_S} MB/s and >= ${TARGET_RATIO}x naive (best of ${runs} runs)`)
}

await main()
