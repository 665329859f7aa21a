// Writes a diagnostic file into the run's directory and describes it as an ArtifactRef.

import { createHash } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { ArtifactRef } from '../../model/result.ts'

export async function writeArtifact(
  runDir: string,
  name: string,
  kind: string,
  content: Uint8Array,
): Promise<ArtifactRef> {
  await mkdir(runDir, { recursive: true })
  const location = path.join(runDir, name)
  await writeFile(location, content)
  return {
    name,
    kind,
    size: content.byteLength,
    sha256: createHash('sha256').update(content).digest('hex'),
    location,
  }
}
