import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import type { ArtifactRef } from '../model/result.ts'

/** An ArtifactRef for a file kept on disk; `location` is its path until the reporter uploads it. */
export async function artifactFor(path: string, name: string, kind: string): Promise<ArtifactRef> {
  const [data, info] = await Promise.all([readFile(path), stat(path)])
  return {
    name,
    kind,
    size: info.size,
    sha256: createHash('sha256').update(data).digest('hex'),
    location: path,
  }
}
