import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buffer } from 'node:stream/consumers'
import { pipeline } from 'node:stream/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import yauzl from 'yauzl'
import yazl from 'yazl'
import { createScrubber, SCRUBBED } from '../../src/secrets/scrubber.ts'
import { scrubZipFile, ZipScrubError } from '../../src/secrets/zip-scrubber.ts'
import { base64Recovers } from './stream-helpers.ts'

const PASSWORD = 'hunter2 "pässwörd" <&> /ok'
const TOKEN = 'sk_live_51HyZgT0kenValue'

interface ZipContent {
  comment: string
  entries: Map<string, { data: Buffer; compressed: boolean; mode: number }>
}

async function readZip(file: string): Promise<ZipContent> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true })
  const entries: ZipContent['entries'] = new Map()
  for await (const entry of zip.eachEntry()) {
    const data = entry.fileName.endsWith('/')
      ? Buffer.alloc(0)
      : await buffer(await zip.openReadStreamPromise(entry))
    entries.set(entry.fileName, {
      data,
      compressed: entry.compressionMethod !== 0,
      mode: entry.externalFileAttributes >>> 16,
    })
  }
  const comment = zip.comment
  zip.close()
  return { comment, entries }
}

async function writeZip(
  file: string,
  entries: { name: string; data?: Buffer; compress?: boolean }[],
  comment: string,
) {
  const zip = new yazl.ZipFile()
  const done = pipeline(zip.outputStream, createWriteStream(file))
  for (const { name, data, compress } of entries) {
    if (data === undefined) zip.addEmptyDirectory(name)
    else zip.addBuffer(data, name, { compress: compress ?? true, mode: 0o100640 })
  }
  zip.end({ forceZip64Format: false, comment })
  await done
}

function forms(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ k: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(JSON.stringify(secret)).slice(1, -1),
    secret.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;'),
  ]
}

function leaks(text: string): string[] {
  const found: string[] = []
  for (const secret of [PASSWORD, TOKEN]) {
    for (const form of forms(secret)) if (text.includes(form)) found.push(form)
    if (base64Recovers(text, secret)) found.push(`base64 of ${secret}`)
  }
  return found
}

/** Trace-like lines, a few of which carry a secret in some form; large enough to span many stream chunks. */
function networkLog(lines: number): Buffer {
  const out: string[] = []
  for (let i = 0; i < lines; i++) {
    const filler = randomBytes(30).toString('hex')
    if (i % 97 === 0)
      out.push(JSON.stringify({ i, url: `https://app.test/cb?token=${encodeURIComponent(TOKEN)}` }))
    else if (i % 89 === 0) out.push(JSON.stringify({ i, postData: JSON.stringify({ password: PASSWORD }) }))
    else if (i % 83 === 0) out.push(JSON.stringify({ i, auth: `Basic ${btoa(`svc:${TOKEN}`)}` }))
    else out.push(JSON.stringify({ i, filler }))
  }
  return Buffer.from(out.join('\n'))
}

describe('scrubZipFile', () => {
  let dir = ''
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'outpost-zip-scrub-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('rewrites every entry of a trace-like zip so no secret survives in any form', async () => {
    const source = path.join(dir, 'trace.zip')
    const destination = path.join(dir, 'trace.scrubbed.zip')
    const clean = randomBytes(200_000)
    const binary = Buffer.concat([randomBytes(5000), Buffer.from(TOKEN), randomBytes(5000)])
    const html = `<input value="${forms(PASSWORD)[5]}"><p>${forms(PASSWORD)[5]}</p>`
    await writeZip(
      source,
      [
        {
          name: 'trace.trace',
          data: Buffer.from(`{"type":"log","text":${JSON.stringify(`login ${PASSWORD} ${TOKEN}`)}}\n`),
        },
        { name: 'trace.network', data: networkLog(20_000) },
        { name: 'resources/page.html', data: Buffer.from(html), compress: false },
        { name: `resources/${encodeURIComponent(TOKEN)}.json`, data: Buffer.from('{"ok":true}') },
        { name: 'resources/blob.bin', data: binary },
        { name: 'resources/clean.bin', data: clean },
        { name: 'empty/' },
      ],
      `made for ${TOKEN}`,
    )
    const before = await readZip(source)
    for (const name of ['trace.trace', 'trace.network', 'resources/page.html', 'resources/blob.bin']) {
      expect(leaks(before.entries.get(name)!.data.toString('utf8')), name).not.toEqual([])
    }

    const report = await scrubZipFile({ scrubber: createScrubber([PASSWORD, TOKEN]), source, destination })

    expect(report.entries).toBe(7)
    const after = await readZip(destination)
    expect([...after.entries.keys()].sort()).toEqual(
      [
        'empty/',
        'resources/blob.bin',
        'resources/clean.bin',
        'resources/page.html',
        `resources/${SCRUBBED}.json`,
        'trace.network',
        'trace.trace',
      ].sort(),
    )
    for (const [name, entry] of after.entries) {
      expect(leaks(name), name).toEqual([])
      expect(leaks(entry.data.toString('utf8')), name).toEqual([])
      expect(leaks(entry.data.toString('latin1')), name).toEqual([])
    }
    expect(leaks(after.comment)).toEqual([])
    expect(after.comment).toBe(`made for ${SCRUBBED}`)
    expect(after.entries.get('resources/clean.bin')!.data.equals(clean)).toBe(true)
    expect(after.entries.get('resources/page.html')!.data.toString()).toBe(
      `<input value="${SCRUBBED}"><p>${SCRUBBED}</p>`,
    )
    expect(after.entries.get('resources/page.html')!.compressed).toBe(false)
    expect(after.entries.get('trace.network')!.compressed).toBe(true)
    expect(after.entries.get('trace.trace')!.mode & 0o777).toBe(0o640)
    // Every line of the big entry is still valid JSON: scrubbing kept the structure.
    const lines = after.entries.get('trace.network')!.data.toString().split('\n')
    expect(lines).toHaveLength(20_000)
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
    // The source is left as it was.
    expect((await readZip(source)).entries.get('trace.trace')!.data).toEqual(
      before.entries.get('trace.trace')!.data,
    )
  })

  it('rewrites zips nested inside the zip, and scrubs a .zip entry that is not a zip as bytes', async () => {
    const inner = path.join(dir, 'inner.zip')
    await writeZip(inner, [{ name: 'trace.network', data: networkLog(2_000) }], '')
    const middle = path.join(dir, 'middle.zip')
    await writeZip(middle, [{ name: 'test-results/trace.zip', data: await readFile(inner) }], '')
    const source = path.join(dir, 'artifacts.zip')
    await writeZip(
      source,
      [
        { name: 'run/results.zip', data: await readFile(middle) },
        { name: 'notes.zip', data: Buffer.from(`not an archive, just ${TOKEN}`) },
      ],
      '',
    )
    // Compressed, the nested secrets are invisible to a plain byte scan.
    expect(leaks((await readFile(source)).toString('latin1'))).toEqual([])
    const destination = path.join(dir, 'artifacts.scrubbed.zip')

    await scrubZipFile({ scrubber: createScrubber([PASSWORD, TOKEN]), source, destination, tempDir: dir })

    const outer = await readZip(destination)
    expect(outer.entries.get('notes.zip')!.data.toString()).toBe(`not an archive, just ${SCRUBBED}`)
    const middleOut = path.join(dir, 'middle.out.zip')
    await writeFile(middleOut, outer.entries.get('run/results.zip')!.data)
    const innerOut = path.join(dir, 'inner.out.zip')
    await writeFile(innerOut, (await readZip(middleOut)).entries.get('test-results/trace.zip')!.data)
    const network = (await readZip(innerOut)).entries.get('trace.network')!.data.toString()
    expect(network.split('\n')).toHaveLength(2_000)
    expect(network).toContain(SCRUBBED)
    expect(leaks(network)).toEqual([])
    // The unpacked copies are gone.
    expect((await readdir(dir)).filter((name) => name.startsWith('outpost-nested-zip-'))).toEqual([])
  })

  it('refuses zips nested deeper than it unpacks, and leaves no output behind', async () => {
    let current = path.join(dir, 'level-0.zip')
    await writeZip(current, [{ name: 'secret.txt', data: Buffer.from(TOKEN) }], '')
    for (let level = 1; level <= 4; level++) {
      const next = path.join(dir, `level-${level}.zip`)
      await writeZip(next, [{ name: `level-${level - 1}.zip`, data: await readFile(current) }], '')
      current = next
    }
    const destination = path.join(dir, 'out.zip')
    const attempt = scrubZipFile({
      scrubber: createScrubber([TOKEN]),
      source: current,
      destination,
      tempDir: dir,
    })
    await expect(attempt).rejects.toThrow(/nests zips more than 3 deep/)
    await expect(access(destination)).rejects.toThrow()
  })

  it('refuses a file that is not a zip, naming it, and leaves no output behind', async () => {
    const source = path.join(dir, 'not-a.zip')
    const destination = path.join(dir, 'out.zip')
    await writeFile(source, 'plain text, not a zip archive')
    const attempt = scrubZipFile({ scrubber: createScrubber([TOKEN]), source, destination })
    await expect(attempt).rejects.toBeInstanceOf(ZipScrubError)
    await expect(attempt).rejects.toThrow(source)
    await expect(access(destination)).rejects.toThrow()
    expect(await readFile(source, 'utf8')).toBe('plain text, not a zip archive')
  })
})
