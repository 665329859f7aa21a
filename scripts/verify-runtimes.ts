// Build-time check of the full image: every runtime under runtimes/ resolves all it needs, or the build
// fails naming what is missing (a broken runtime would otherwise surface only in a check run).
// Usage: node scripts/verify-runtimes.ts [runtimes-dir]

import { resolve } from 'node:path'
import { verifyRuntimes } from '../src/runner/runtimes.ts'

const dir = resolve(process.argv[2] ?? resolve(import.meta.dirname, '../runtimes'))
const statuses = await verifyRuntimes(dir)
for (const s of statuses) {
  if (s.available)
    console.log(`runtime ${s.id}: ok (@playwright/test ${s.playwrightVersion ?? 'version unknown'})`)
  else
    console.error(`runtime ${s.id}: BROKEN: ${s.reason ?? 'unavailable'}; missing: ${s.missing.join(', ')}`)
}
if (statuses.length === 0 || statuses.some((s) => !s.available)) process.exitCode = 1
