// The corpus of malformed check files (check-file-cases.ts), loaded by the real loader in a real Node
// process: every case gives exactly its diagnostics, with the property named; the load itself never
// fails; a file with problems adds no check; the good file beside them still loads.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatDiagnostic } from '../../src/constructs/diagnostics.ts'
import { type CheckDir, type Loaded, loadOnce, makeCheckDir } from '../loader/support/check-dir.ts'
import { checkFileCases, GOOD_FILE } from './check-file-cases.ts'

describe('corpus: malformed check files', () => {
  let dir: CheckDir
  let loaded: Loaded
  beforeAll(async () => {
    dir = makeCheckDir(
      Object.fromEntries([GOOD_FILE, ...checkFileCases].map((c) => [c.file, c.source] as const)),
    )
    loaded = await loadOnce(dir.path)
  }, 120_000)
  afterAll(() => dir.remove())

  it('the load completes and only the good check is loaded', () => {
    expect(loaded.error).toBeUndefined()
    expect(loaded.checks.map((c) => c.logicalId)).toEqual(['good'])
  })

  it.each(checkFileCases.map((c) => [c.file, c] as const))('%s', (_file, c) => {
    const found = loaded.diagnostics.filter((d) => d.file === c.file)
    expect(found.map((d) => d.property).sort()).toEqual(c.expect.map((e) => e.property).sort())
    for (const wanted of c.expect) {
      const match = found.find(
        (d) =>
          d.property === wanted.property &&
          (wanted.logicalId === undefined || d.logicalId === wanted.logicalId) &&
          wanted.reason.test(d.reason),
      )
      expect(
        match,
        `${c.file}: ${wanted.property} ${wanted.reason} in ${JSON.stringify(found)}`,
      ).toBeDefined()
    }
  })

  it('prints each problem on one short line without control characters, whatever the check file held', () => {
    for (const d of loaded.diagnostics) {
      const line = formatDiagnostic(d)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is that none are printed.
      expect(line).not.toMatch(/[\u0000-\u001f]/)
      expect(line.length).toBeLessThan(1000)
    }
  })
})
