import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** A stable id for this agent, created on first start and kept in the data directory. */
export async function loadOrCreateAgentId(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'agent-id')
  try {
    const id = (await readFile(file, 'utf8')).trim()
    if (id) return id
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const id = randomUUID()
  await mkdir(dataDir, { recursive: true })
  const temp = `${file}.${process.pid}.tmp`
  await writeFile(temp, `${id}\n`)
  await rename(temp, file)
  return id
}
