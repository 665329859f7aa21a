import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BrowserCheck, type BrowserCheckProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-browser-'))
  writeFileSync(join(dir, 'home.spec.js'), "test('home', async ({ page }) => {})\n")
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const check = (props: Record<string, unknown>) =>
  new BrowserCheck('home', {
    name: 'Home',
    code: { entrypoint: './home.spec.js' },
    ...props,
  } as BrowserCheckProps)

describe('BrowserCheck', () => {
  it('resolves its spec file and defaults like multistep checks', () => {
    const checkFile = join(dir, 'home.check.ts')
    expect(problemsOf(check({}), { checkFile })).toEqual([])
    expect(check({}).toDefinition(contextOf({ checkFile }))).toMatchObject({
      type: 'BROWSER',
      code: { entrypoint: join(dir, 'home.spec.js') },
      runtimeId: '2026.04',
      frequencySeconds: 600,
    })
  })

  it('refuses both code forms, an old runtime and a sub-minute frequency', () => {
    const checkFile = join(dir, 'home.check.ts')
    expect(
      problemsOf(
        check({
          code: { entrypoint: './home.spec.js', content: 'x' },
          runtimeId: '2022.10',
          frequency: 'EVERY_10S',
        }),
        {
          checkFile,
        },
      ),
    ).toEqual([
      'frequency: EVERY_10S is not allowed for browser checks; use EVERY_1M..EVERY_24H',
      'code: has both entrypoint and content; give exactly one',
      'runtimeId: runtime 2022.10 does not support browser checks: they need 2023.09 or later (2023.09, 2025.04, 2026.04)',
    ])
  })
})
