// Runs loadChecks in a real Node process (as the CLI does; Vitest's module runner would intercept the
// check files' imports) and prints the results as JSON. The plan, a JSON argument, lists the loads to
// run; `write` files are written before a load, so one process can show reloading.
//   { "dirs": [[dir, ...]], "writes": [{path: content} | null], "importTimeoutMs": n }
// Each entry of `dirs` is one round; the dirs of a round load concurrently.

import { writeFileSync } from 'node:fs'
import { ChecksDirectoryError, loadChecks } from '../../../src/loader/load-checks.ts'

interface Plan {
  dirs: string[][]
  writes?: (Record<string, string> | null)[]
  importTimeoutMs?: number
}

const plan = JSON.parse(process.argv[2] ?? '{}') as Plan
const rounds: unknown[] = []
for (const [index, dirs] of plan.dirs.entries()) {
  for (const [path, content] of Object.entries(plan.writes?.[index] ?? {})) writeFileSync(path, content)
  const options = plan.importTimeoutMs === undefined ? {} : { importTimeoutMs: plan.importTimeoutMs }
  rounds.push(
    await Promise.all(
      dirs.map((dir) =>
        loadChecks(dir, options).catch((error: unknown) => ({
          error:
            error instanceof ChecksDirectoryError ? `ChecksDirectoryError: ${error.message}` : String(error),
        })),
      ),
    ),
  )
}
process.stdout.write(JSON.stringify(rounds))
