import { describe, expect, it } from 'vitest'
import { mergeSteps, parseRunEvents } from '../../src/runner/run-events.ts'

const line = (event: Record<string, unknown>) => JSON.stringify({ at: 1_700_000_000_000, ...event })

describe('run events', () => {
  it('keeps every complete line of a run killed mid-step, and marks the open step and the rest', () => {
    const ndjson = [
      line({ type: 'begin', tests: 1 }),
      line({ type: 'step-begin', title: 'one' }),
      line({ type: 'stdout', text: 'hello\nworld\n' }),
      line({ type: 'step-end', title: 'one', durationMs: 12.4 }),
      line({ type: 'step-begin', title: 'two' }),
      '{"type":"stdout","te', // cut short by the kill
    ].join('\n')
    const events = parseRunEvents(ndjson)
    expect(events.ended).toBe(false)
    expect(events.unfinished).toEqual(['two'])
    expect(events.logs.map((l) => l.message)).toEqual(['hello', 'world'])
    expect(
      mergeSteps(events, ['one', 'two', 'three'], 'the run was stopped at its timeout (5000 ms)'),
    ).toEqual([
      { name: 'one', status: 'passed', durationMs: 12 },
      {
        name: 'two',
        status: 'failed',
        durationMs: expect.any(Number),
        error: 'did not finish: the run was stopped at its timeout (5000 ms)',
      },
      { name: 'three', status: 'skipped', durationMs: 0, error: 'not run: step "two" failed before it' },
    ])
  })

  it('counts a step run in a loop against one declaration', () => {
    const ndjson = ['a', 'a', 'a']
      .flatMap((title) => [
        line({ type: 'step-begin', title }),
        line({ type: 'step-end', title, durationMs: 1 }),
      ])
      .join('\n')
    expect(mergeSteps(parseRunEvents(ndjson), ['a'], undefined).map((s) => s.status)).toEqual([
      'passed',
      'passed',
      'passed',
    ])
  })
})

describe('run event limits', () => {
  it('keeps the first lines of a chatty run and says how many were dropped', () => {
    const ndjson = line({
      type: 'stdout',
      text: Array.from({ length: 1005 }, (_, i) => `line ${i}`).join('\n'),
    })
    const logs = parseRunEvents(ndjson).logs
    expect(logs).toHaveLength(1001)
    expect(logs[999]?.message).toBe('line 999')
    expect(logs[1000]?.message).toBe('5 more lines of output were not kept (at most 1000)')
  })
})
