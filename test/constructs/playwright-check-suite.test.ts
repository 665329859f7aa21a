import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PlaywrightCheckSuite, type PlaywrightCheckSuiteProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

let dir: string
let checkFile: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-suite-'))
  mkdirSync(join(dir, 'e2e'))
  writeFileSync(join(dir, 'e2e', 'playwright.config.ts'), 'export default {}\n')
  writeFileSync(join(dir, 'e2e', 'other.config.ts'), 'export default {}\n')
  checkFile = join(dir, 'suite.check.ts')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const suite = (props: Record<string, unknown>) =>
  new PlaywrightCheckSuite('e2e', {
    name: 'E2E',
    playwrightConfigPath: './e2e/playwright.config.ts',
    ...props,
  } as PlaywrightCheckSuiteProps)

describe('PlaywrightCheckSuite', () => {
  it('resolves the config path and keeps projects, tags and commands', () => {
    const check = suite({ pwProjects: ['chromium'], pwTags: ['@smoke'], installCommand: 'npm ci' })
    expect(problemsOf(check, { checkFile })).toEqual([])
    expect(check.toDefinition(contextOf({ checkFile }))).toMatchObject({
      type: 'PLAYWRIGHT',
      playwrightConfigPath: join(dir, 'e2e', 'playwright.config.ts'),
      pwProjects: ['chromium'],
      pwTags: ['@smoke'],
      installCommand: 'npm ci',
    })
  })

  it('refuses a missing config, a file not named playwright.config.*, and a missing path', () => {
    expect(problemsOf(suite({ playwrightConfigPath: './e2e/other.config.ts' }), { checkFile })).toEqual([
      'playwrightConfigPath: must name a playwright.config.{ts,js,mjs,cjs} file, got "./e2e/other.config.ts"',
    ])
    expect(problemsOf(suite({ playwrightConfigPath: './gone/playwright.config.ts' }), { checkFile })).toEqual(
      [
        `playwrightConfigPath: "./gone/playwright.config.ts" does not exist (looked for ${join(dir, 'gone', 'playwright.config.ts')})`,
      ],
    )
    expect(problemsOf(suite({ playwrightConfigPath: undefined }), { checkFile })).toEqual([
      'playwrightConfigPath: is required',
    ])
  })
})
