// Node's on-disk compile cache (NODE_COMPILE_CACHE) for check runs: Playwright is loaded twice per run
// (main process and worker), and cached bytecode takes a fifth off a short run. Each run also adds
// an entry or two for its own spec and config (their paths are new every run), so the cache is wiped
// when it grows past a bound; it refills from the next run on.

import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

export const MAX_COMPILE_CACHE_ENTRIES = 4000

export async function trimCompileCache(
  dir: string,
  maxEntries = MAX_COMPILE_CACHE_ENTRIES,
): Promise<boolean> {
  const versions = await readdir(dir).catch(() => [] as string[])
  let wiped = false
  for (const version of versions) {
    const entries = await readdir(join(dir, version)).catch(() => [] as string[])
    if (entries.length > maxEntries) {
      await rm(join(dir, version), { recursive: true, force: true })
      wiped = true
    }
  }
  return wiped
}
