// Rewrites a trace.zip with every secret scrubbed from every entry. Text entries go through the
// scrubber (encoded forms included); binary entries (screenshots, fonts) cannot be decoded as text
// without damage, so only the raw bytes of each secret are replaced there.

import { readFile, writeFile } from 'node:fs/promises'
import type { Scrubber } from '../secrets/scrubber.ts'
import { SCRUBBED } from '../secrets/scrubber.ts'
import { isTextEntry } from './trace-facts.ts'
import { readZip, writeZip, type ZipEntry } from './zip.ts'

function scrubBinary(data: Buffer, secrets: string[]): Buffer {
  // latin1 maps each byte to one char and back, so replacing in that view keeps the bytes intact.
  let view = data.toString('latin1')
  let changed = false
  for (const secret of secrets) {
    const needle = Buffer.from(secret, 'utf8').toString('latin1')
    if (needle.length > 0 && view.includes(needle)) {
      view = view.split(needle).join(SCRUBBED)
      changed = true
    }
  }
  return changed ? Buffer.from(view, 'latin1') : data
}

export function scrubEntries(entries: ZipEntry[], scrubber: Scrubber, secrets: string[]): ZipEntry[] {
  return entries.map((entry) => ({
    name: entry.name,
    data: isTextEntry(entry.data)
      ? Buffer.from(scrubber.text(entry.data.toString('utf8')), 'utf8')
      : scrubBinary(entry.data, secrets),
  }))
}

/** Scrubs the zip at `path` in place; returns its entries as they were before scrubbing. */
export async function scrubTraceZip(
  path: string,
  scrubber: Scrubber,
  secrets: string[],
): Promise<ZipEntry[]> {
  const entries = readZip(await readFile(path))
  await writeFile(path, writeZip(scrubEntries(entries, scrubber, secrets)))
  return entries
}
