// The deadline clock times every run of a probe with one Node timer. What must hold: each run fires
// once, at its own limit and not before, in expiry order across limits; a run that ended or whose
// job stopped it never fires later; the job's signal is heard (at once by a run past its first watch
// period, within that period by a newer one); and the clock never keeps a process alive by itself.

import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createDeadlineClock, PARENT_WATCH_MS, type RunDeadline } from '../../src/probes/run-deadline.ts'

const run = promisify(execFile)

function stopped(deadline: RunDeadline): Promise<void> {
  return new Promise((resolve) => {
    if (deadline.signal.aborted) resolve()
    else deadline.signal.addEventListener('abort', () => resolve(), { once: true })
  })
}

describe('deadline clock', () => {
  it('fires a run at its limit, and not before', async () => {
    const clock = createDeadlineClock()
    const deadline = clock.start(new AbortController().signal, 40)
    await stopped(deadline)
    expect(deadline.timedOut).toBe(true)
    expect(String(deadline.signal.reason)).toContain('probe limit of 40 ms reached')
    // The clock may be woken a millisecond early by Node; never more.
    expect(deadline.elapsed()).toBeGreaterThanOrEqual(39)
    deadline.dispose()
  })

  it('fires runs in the order their limits expire, whatever order they started in', async () => {
    const clock = createDeadlineClock()
    const order: string[] = []
    const parent = new AbortController().signal
    const runs = [
      ['long', clock.start(parent, 150)],
      ['middle', clock.start(parent, 80)],
      ['short', clock.start(parent, 20)],
      ['middle-again', clock.start(parent, 80)],
    ] as const
    await Promise.all(
      runs.map(async ([name, deadline]) => {
        await stopped(deadline)
        order.push(name)
      }),
    )
    expect(order).toEqual(['short', 'middle', 'middle-again', 'long'])
    for (const [, deadline] of runs) expect(deadline.timedOut).toBe(true)
  })

  it('fires in expiry order even when the timer comes late and all of them are due', async () => {
    const clock = createDeadlineClock()
    const parent = new AbortController().signal
    const order: string[] = []
    const runs = [
      ['long', clock.start(parent, 60)],
      ['middle', clock.start(parent, 40)],
      ['short', clock.start(parent, 20)],
    ] as const
    for (const [name, deadline] of runs) deadline.signal.addEventListener('abort', () => order.push(name))
    // The event loop held past every limit: one late tick finds all three due.
    const blockedUntil = performance.now() + 150
    while (performance.now() < blockedUntil) {
      // busy
    }
    await Promise.all(runs.map(([, deadline]) => stopped(deadline)))
    expect(order).toEqual(['short', 'middle', 'long'])
  })

  it('takes a limit longer than a Node timer can hold without spinning or warning', async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name)
    }
    process.on('warning', onWarning)
    try {
      const clock = createDeadlineClock()
      const deadline = clock.start(new AbortController().signal, 3e9)
      const short = clock.start(new AbortController().signal, 30)
      await stopped(short)
      await new Promise((resolve) => setTimeout(resolve, 30))
      expect(deadline.signal.aborted).toBe(false)
      deadline.dispose()
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings).not.toContain('TimeoutOverflowWarning')
  })

  it('never fires a run that ended, even when it was the one the timer was set for', async () => {
    const clock = createDeadlineClock()
    const parent = new AbortController().signal
    const ended = clock.start(parent, 15)
    let endedFired = false
    ended.signal.addEventListener('abort', () => {
      endedFired = true
    })
    ended.dispose()
    const later = clock.start(parent, 60)
    await stopped(later)
    expect(endedFired).toBe(false)
    expect(ended.signal.aborted).toBe(false)
    expect(later.timedOut).toBe(true)
  })

  it("hears the job's signal within the watch period when it fires just after the run started", async () => {
    const clock = createDeadlineClock()
    const job = new AbortController()
    const deadline = clock.start(job.signal, 60_000)
    let fired = 0
    deadline.signal.addEventListener('abort', () => fired++)
    job.abort(new Error('job timed out'))
    await stopped(deadline)
    expect(deadline.timedOut).toBe(false)
    expect(String(deadline.signal.reason)).toContain('job timed out')
    expect(fired).toBe(1)
    deadline.dispose()
  })

  it("once past the watch period, a run stops the moment the job's signal fires; its limit then fires nothing", async () => {
    const clock = createDeadlineClock()
    const job = new AbortController()
    const deadline = clock.start(job.signal, 30 + PARENT_WATCH_MS * 3)
    let fired = 0
    deadline.signal.addEventListener('abort', () => fired++)
    await new Promise((resolve) => setTimeout(resolve, PARENT_WATCH_MS * 2))
    job.abort(new Error('agent shutting down'))
    expect(deadline.signal.aborted).toBe(true)
    expect(String(deadline.signal.reason)).toContain('agent shutting down')
    // A later run on the same clock outlives the first one's limit: the first must stay quiet.
    const after = clock.start(new AbortController().signal, 150)
    await stopped(after)
    expect(fired).toBe(1)
    expect(deadline.timedOut).toBe(false)
    deadline.dispose()
  })

  it("a run that ended never listens to its job's signal", async () => {
    const clock = createDeadlineClock()
    const job = new AbortController()
    const deadline = clock.start(job.signal, 1000)
    deadline.dispose()
    await new Promise((resolve) => setTimeout(resolve, PARENT_WATCH_MS * 2))
    let fired = false
    deadline.signal.addEventListener('abort', () => {
      fired = true
    })
    job.abort()
    expect(deadline.signal.aborted).toBe(false)
    expect(fired).toBe(false)
  })

  it('starts stopped when the job signal has already fired', () => {
    const clock = createDeadlineClock()
    const deadline = clock.start(AbortSignal.abort(new Error('shutting down')), 1000)
    expect(deadline.signal.aborted).toBe(true)
    expect(String(deadline.signal.reason)).toContain('shutting down')
    deadline.dispose()
  })

  it('fires each of many concurrent runs exactly once, runs ended midway never', async () => {
    const clock = createDeadlineClock()
    const parent = new AbortController().signal
    const fired = new Map<number, number>()
    const deadlines = Array.from({ length: 60 }, (_, i) => {
      const deadline = clock.start(parent, 10 + (i % 3) * 15)
      deadline.signal.addEventListener('abort', () => fired.set(i, (fired.get(i) ?? 0) + 1))
      return deadline
    })
    const ended = new Set([3, 4, 17, 30, 59])
    for (const i of ended) deadlines[i]?.dispose()
    await Promise.all(deadlines.filter((_, i) => !ended.has(i)).map(stopped))
    // Give the clock one more turn after the last run: anything left over would fire now.
    await new Promise((resolve) => setTimeout(resolve, 60))
    for (let i = 0; i < deadlines.length; i++)
      expect(fired.get(i), `run ${i}`).toBe(ended.has(i) ? undefined : 1)
  })

  it('a run with no limit stops only with its job', async () => {
    const clock = createDeadlineClock()
    const job = new AbortController()
    const unlimited = clock.start(job.signal, undefined)
    const limited = clock.start(new AbortController().signal, 20)
    await stopped(limited)
    expect(unlimited.signal.aborted).toBe(false)
    job.abort()
    await stopped(unlimited)
    expect(unlimited.timedOut).toBe(false)
  })

  it('does not keep a process alive on its own', async () => {
    const script = [
      `const { createDeadlineClock } = await import(${JSON.stringify(path.resolve(import.meta.dirname, '../../src/probes/run-deadline.ts'))})`,
      'const deadline = createDeadlineClock().start(new AbortController().signal, 30000)',
      "deadline.signal.addEventListener('abort', () => console.log('fired'))",
    ].join('\n')
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script])
    expect(stdout).toBe('')
  })
})
