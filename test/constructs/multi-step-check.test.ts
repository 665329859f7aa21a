import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Frequency, MultiStepCheck, type MultiStepCheckProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

let dir: string
let checkFile: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-multistep-'))
  mkdirSync(join(dir, 'specs'))
  checkFile = join(dir, 'api.check.ts')
  writeFileSync(
    join(dir, 'specs', 'api.spec.ts'),
    "import { test } from '@playwright/test'\ntest('x', () => {})\n",
  )
  writeFileSync(join(dir, 'specs', 'empty.spec.ts'), '  \n')
  writeFileSync(join(dir, 'specs', 'helper.ts'), 'export {}\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const base: MultiStepCheckProps = { name: 'API flow', code: { content: "test('x', () => {})" } }
const check = (props: Record<string, unknown>) =>
  new MultiStepCheck('api-flow', { ...base, ...props } as MultiStepCheckProps)
const problems = (props: Record<string, unknown>) => problemsOf(check(props), { checkFile })

describe('MultiStepCheck', () => {
  it('defaults to EVERY_10M and the newest runtime, 2026.04', () => {
    expect(problems({})).toEqual([])
    expect(check({}).toDefinition(contextOf({ checkFile }))).toMatchObject({
      type: 'MULTI_STEP',
      frequencySeconds: 600,
      runtimeId: '2026.04',
      code: { content: "test('x', () => {})" },
      locations: [],
    })
  })

  it('takes the project runtime when it names none, its own when it does', () => {
    const defaults = { runtimeId: '2025.04' as const }
    expect(check({}).toDefinition(contextOf({ checkFile, defaults })).runtimeId).toBe('2025.04')
    expect(check({ runtimeId: '2023.09' }).toDefinition(contextOf({ checkFile, defaults })).runtimeId).toBe(
      '2023.09',
    )
  })

  it('needs exactly one of entrypoint and content', () => {
    expect(problems({ code: { entrypoint: './specs/api.spec.ts', content: 'x' } })).toEqual([
      'code: has both entrypoint and content; give exactly one',
    ])
    expect(problems({ code: {} })).toEqual([
      'code: has neither entrypoint nor content; give exactly one (entrypoint: a .spec.ts or .spec.js file)',
    ])
    expect(problems({ code: undefined })).toEqual([
      "code: is required: {entrypoint: 'a .spec.ts or .spec.js file'} or {content: 'inline test code'}",
    ])
    expect(problems({ code: { content: '  ' } })).toEqual(['code.content: must not be empty'])
  })

  it('resolves an entrypoint relative to the check file and stores it absolute', () => {
    expect(problems({ code: { entrypoint: './specs/api.spec.ts' } })).toEqual([])
    const definition = check({ code: { entrypoint: './specs/api.spec.ts' } }).toDefinition(
      contextOf({ checkFile }),
    )
    expect(definition.code).toEqual({ entrypoint: join(dir, 'specs', 'api.spec.ts') })
  })

  it('refuses an entrypoint that is not a spec file, is missing or is empty', () => {
    expect(problems({ code: { entrypoint: './specs/helper.ts' } })).toEqual([
      'code.entrypoint: must name a .spec.ts or .spec.js file, got "./specs/helper.ts"',
    ])
    expect(problems({ code: { entrypoint: './specs/gone.spec.ts' } })).toEqual([
      `code.entrypoint: "./specs/gone.spec.ts" does not exist (looked for ${join(dir, 'specs', 'gone.spec.ts')})`,
    ])
    expect(problems({ code: { entrypoint: './specs/empty.spec.ts' } })).toEqual([
      `code.entrypoint: "./specs/empty.spec.ts" is empty (looked for ${join(dir, 'specs', 'empty.spec.ts')})`,
    ])
    expect(problems({ code: { entrypoint: './specs' + '/' } })).toEqual([
      'code.entrypoint: must name a .spec.ts or .spec.js file, got "./specs/"',
    ])
  })

  it('accepts runtimes 2023.09, 2025.04 and 2026.04', () => {
    for (const runtimeId of ['2023.09', '2025.04', '2026.04']) expect(problems({ runtimeId })).toEqual([])
  })

  it('refuses an earlier runtime because multistep needs 2023.09 or later, and an unknown one', () => {
    expect(problems({ runtimeId: '2022.10' })).toEqual([
      'runtimeId: runtime 2022.10 does not support multistep checks: they need 2023.09 or later (2023.09, 2025.04, 2026.04)',
    ])
    expect(problems({ runtimeId: '2024.02' })).toEqual([
      'runtimeId: unknown runtime "2024.02"; known: 2023.09, 2025.04, 2026.04',
    ])
    expect(problems({ runtimeId: 'latest' })).toEqual([
      'runtimeId: unknown runtime "latest"; known: 2023.09, 2025.04, 2026.04',
    ])
  })

  it('takes EVERY_1M to EVERY_24H and refuses sub-minute frequencies', () => {
    expect(problems({ frequency: Frequency.EVERY_1M })).toEqual([])
    expect(problems({ frequency: Frequency.EVERY_24H })).toEqual([])
    expect(problems({ frequency: Frequency.EVERY_30S })).toEqual([
      'frequency: EVERY_30S is not allowed for multistep checks; use EVERY_1M..EVERY_24H',
    ])
    expect(problems({ frequency: 'EVERY_7M' })).toEqual([
      'frequency: must be a Frequency (EVERY_1M..EVERY_24H), got "EVERY_7M"',
    ])
  })

  it('takes the known location codes and refuses others', () => {
    expect(
      problems({ locations: ['us-east-1', 'us-west-1', 'eu-west-1', 'ap-southeast-1', 'ap-northeast-1'] }),
    ).toEqual([])
    expect(problems({ locations: ['eu-central-1'] })).toEqual([
      'locations[0]: unknown location "eu-central-1"; known: us-east-1, us-west-1, eu-west-1, ap-southeast-1, ap-northeast-1',
    ])
  })

  it('keeps a description', () => {
    expect(
      check({ description: 'Signs in and out' }).toDefinition(contextOf({ checkFile })).description,
    ).toBe('Signs in and out')
    expect(problems({ description: 42 })).toEqual(['description: must be a string, got 42'])
  })
})
