import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { trimCompileCache } from '../../src/runner/compile-cache.ts'
import { tempDir } from './helpers.ts'

describe('trimCompileCache', () => {
  it('wipes a Node version folder that grew past the bound and keeps a small one', async () => {
    const dir = await tempDir('ncc-')
    for (const [version, count] of [
      ['v24-big', 6],
      ['v24-small', 2],
    ] as const) {
      await mkdir(join(dir.path, version))
      for (let i = 0; i < count; i++) await writeFile(join(dir.path, version, `entry${i}`), 'x')
    }
    expect(await trimCompileCache(dir.path, 5)).toBe(true)
    expect(await readdir(dir.path)).toEqual(['v24-small'])
    expect(await trimCompileCache(join(dir.path, 'missing'), 5)).toBe(false)
    await dir.remove()
  })
})
