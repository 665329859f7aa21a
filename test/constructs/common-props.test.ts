import { describe, expect, it } from 'vitest'
import { Frequency, RetryStrategyBuilder, UrlMonitor, type UrlMonitorProps } from '../../src/index.ts'
import { contextOf, problemsOf } from './problems.ts'

const base: UrlMonitorProps = { name: 'Site', request: { url: 'https://example.test/' } }
const monitor = (props: Record<string, unknown>, id: unknown = 'site') =>
  new UrlMonitor(id as string, { ...base, ...props } as UrlMonitorProps)

describe('common props', () => {
  it('requires a name', () => {
    expect(problemsOf(monitor({ name: undefined }))).toEqual(['name: is required'])
    expect(problemsOf(monitor({ name: ' ' }))).toEqual(['name: must not be empty'])
    expect(problemsOf(monitor({ name: 7 }))).toEqual(['name: must be a string, got 7'])
  })

  it('refuses a logicalId that cannot be an id, accepts letters, digits, _ - .', () => {
    expect(problemsOf(monitor({}, 'site_1.home-page'))).toEqual([])
    expect(problemsOf(monitor({}, 'has space'))).toEqual([
      `logicalId: must be 1 to 255 letters, digits, '_', '-' or '.', got "has space"`,
    ])
    expect(problemsOf(monitor({}, ''))).toEqual([
      `logicalId: must be 1 to 255 letters, digits, '_', '-' or '.', got ""`,
    ])
    expect(problemsOf(monitor({}, 'x'.repeat(256)))[0]).toMatch(/^logicalId: must be 1 to 255/)
  })

  it('refuses props that are not an object', () => {
    expect(problemsOf(new UrlMonitor('site', undefined as unknown as UrlMonitorProps))).toEqual([
      'props: must be an object of options, got undefined',
    ])
  })

  it('names options it does not know', () => {
    expect(problemsOf(monitor({ maxResponseTme: 10 }))[0]).toMatch(
      /^maxResponseTme: unknown option; known: name, /,
    )
  })

  it('defaults activated true and muted false, and keeps the opposite', () => {
    expect(monitor({}).toDefinition(contextOf())).toMatchObject({ activated: true, muted: false })
    expect(monitor({ activated: false, muted: true }).toDefinition(contextOf())).toMatchObject({
      activated: false,
      muted: true,
    })
    expect(problemsOf(monitor({ activated: 'no', muted: 0 }))).toEqual([
      'activated: must be true or false, got "no"',
      'muted: must be true or false, got 0',
    ])
  })

  it('keeps tags and private locations, refusing non-strings', () => {
    const check = monitor({ tags: ['prod', 'api'], privateLocations: ['dc-1'] })
    expect(problemsOf(check)).toEqual([])
    expect(check.toDefinition(contextOf())).toMatchObject({
      tags: ['prod', 'api'],
      privateLocations: ['dc-1'],
    })
    expect(problemsOf(monitor({ tags: 'prod', privateLocations: [''] }))).toEqual([
      'tags: must be an array of strings, got "prod"',
      'privateLocations[0]: must be a non-empty string, got ""',
    ])
  })

  it('uses project defaults where the check sets nothing, its own props where it does', () => {
    const defaults = {
      frequency: Frequency.EVERY_1M,
      tags: ['team-a'],
      locations: ['eu-west-1' as const],
      muted: true,
    }
    expect(monitor({}).toDefinition(contextOf({ defaults }))).toMatchObject({
      frequencySeconds: 60,
      tags: ['team-a'],
      locations: ['eu-west-1'],
      muted: true,
    })
    expect(
      monitor({ frequency: 'EVERY_5M', tags: [], muted: false }).toDefinition(contextOf({ defaults })),
    ).toMatchObject({
      frequencySeconds: 300,
      tags: [],
      muted: false,
    })
  })

  it('refuses a project default frequency the check type cannot run at, unless the check sets its own', async () => {
    const { MultiStepCheck } = await import('../../src/index.ts')
    const multistep = (props: Record<string, unknown>) =>
      new MultiStepCheck('flow', { name: 'Flow', code: { content: 'x' }, ...props })
    const defaults = { frequency: Frequency.EVERY_10S }
    expect(problemsOf(multistep({}), { defaults })).toEqual([
      'frequency: the project default EVERY_10S (outpost.config) is not allowed for multistep checks (EVERY_1M..EVERY_24H); set frequency on this check',
    ])
    expect(problemsOf(multistep({ frequency: 'EVERY_1M' }), { defaults })).toEqual([])
    expect(problemsOf(monitor({}), { defaults })).toEqual([])
  })

  it('keeps environment variables, refusing bad names, duplicates and non-string values without showing them', () => {
    const good = monitor({
      environmentVariables: [
        { key: 'API_TOKEN', value: 's3cret', secret: true },
        { key: '_x1', value: '' },
      ],
    })
    expect(problemsOf(good)).toEqual([])
    expect(good.toDefinition(contextOf()).environmentVariables).toEqual([
      { key: 'API_TOKEN', value: 's3cret', secret: true },
      { key: '_x1', value: '' },
    ])
    const bad = monitor({
      environmentVariables: [
        { key: '1ABC', value: 'x' },
        { key: 'A-B', value: 'x' },
        { key: 'TOKEN', value: 'hunter2' },
        { key: 'TOKEN', value: 'x' },
        { key: 'NUM', value: 12345 },
        { key: 'S', value: 'x', secret: 'yes' },
      ],
    })
    const problems = problemsOf(bad)
    expect(problems).toEqual([
      `environmentVariables[0].key: must be a variable name (letters, digits and '_', not starting with a digit), got "1ABC"`,
      `environmentVariables[1].key: must be a variable name (letters, digits and '_', not starting with a digit), got "A-B"`,
      'environmentVariables[3].key: TOKEN is set twice',
      'environmentVariables[4].value: must be a string',
      'environmentVariables[5].secret: must be true or false, got "yes"',
    ])
    expect(problems.join('\n')).not.toContain('12345')
    expect(problemsOf(monitor({ environmentVariables: { A: 'b' } }))).toEqual([
      'environmentVariables: must be an array of {key, value, secret?}, got a object',
    ])
  })

  it('takes timeoutSeconds from 1 to 3600', () => {
    expect(monitor({ timeoutSeconds: 10 }).toDefinition(contextOf()).timeoutSeconds).toBe(10)
    expect(monitor({}).toDefinition(contextOf())).not.toHaveProperty('timeoutSeconds')
    expect(problemsOf(monitor({ timeoutSeconds: 3600 }))).toEqual([])
    expect(problemsOf(monitor({ timeoutSeconds: 0 }))).toEqual([
      'timeoutSeconds: must be an integer from 1 to 3600 s, got 0',
    ])
    expect(problemsOf(monitor({ timeoutSeconds: 3601 }))).toEqual([
      'timeoutSeconds: must be an integer from 1 to 3600 s, got 3601',
    ])
  })

  it('keeps a retry strategy and checks hand-written ones', () => {
    const strategy = RetryStrategyBuilder.linearStrategy({ baseBackoffSeconds: 10, maxRetries: 3 })
    expect(monitor({ retryStrategy: strategy }).toDefinition(contextOf()).retryStrategy).toEqual({
      type: 'LINEAR',
      baseBackoffSeconds: 10,
      maxRetries: 3,
      maxDurationSeconds: 600,
      sameRegion: true,
    })
    expect(problemsOf(monitor({ retryStrategy: 'twice' }))).toEqual([
      'retryStrategy: must be built with RetryStrategyBuilder, got "twice"',
    ])
  })
})
