// Artifact uploads stream into `.<name>.<pid>.<ms>.partial` and are renamed when whole. A hub killed
// mid-upload leaves the partial file behind for ever: at start the hub removes the ones nobody has
// written to for a while. Age, not the pid in the name, decides: replicas may share the directory,
// and a live upload's file is written to every moment (its modification time keeps moving). The
// leading dot is what no artifact name can have (they start with a word character): a finished
// artifact called `build.partial` is never taken for an upload.

import type { Dirent } from 'node:fs'
import { readdir, rm, stat } from 'node:fs/promises'
import path from 'node:path'

/** An upload silent this long is abandoned (a 150 MB artifact on a slow link still writes every second). */
export const ABANDONED_UPLOAD_AGE_MS = 10 * 60 * 1000

/** Where an upload of `name` into `dir` is written until it is whole. */
export function partialUploadPath(dir: string, name: string, now: () => number = Date.now): string {
  return path.join(dir, `.${name}.${process.pid}.${now()}.partial`)
}

/** The form partialUploadPath gives, and only that: a dot, a name, the pid, the ms. */
const PARTIAL_UPLOAD = /^\.\w[\w.-]*\.\d+\.\d+\.partial$/

export interface AbandonedUploadsOptions {
  artifactsDir: string
  now?: () => number
  olderThanMs?: number
}

export interface AbandonedUploadsSweep {
  removed: string[]
  bytes: number
}

export async function removeAbandonedUploads(
  options: AbandonedUploadsOptions,
): Promise<AbandonedUploadsSweep> {
  const now = (options.now ?? Date.now)()
  const olderThan = options.olderThanMs ?? ABANDONED_UPLOAD_AGE_MS
  const swept: AbandonedUploadsSweep = { removed: [], bytes: 0 }
  let entries: Dirent[]
  try {
    entries = await readdir(options.artifactsDir, { withFileTypes: true, recursive: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return swept
    throw error
  }
  for (const entry of entries) {
    if (!entry.isFile() || !PARTIAL_UPLOAD.test(entry.name)) continue
    const file = path.join(entry.parentPath, entry.name)
    try {
      const info = await stat(file)
      if (now - info.mtimeMs < olderThan) continue
      await rm(file, { force: true })
      swept.removed.push(file)
      swept.bytes += info.size
    } catch (error) {
      // Renamed or removed meanwhile (its upload finished): nothing to do.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return swept
}
