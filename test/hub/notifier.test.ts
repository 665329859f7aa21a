import { describe, expect, it } from 'vitest'
import { createNotifier } from '../../src/hub/notifier.ts'

describe('notifier', () => {
  it('wakes every waiter on notify, and ends all waits for good on close', async () => {
    const notifier = createNotifier()
    const order: string[] = []
    const a = notifier.wait(3_600_000).then(() => order.push('a'))
    const b = notifier.wait(3_600_000).then(() => order.push('b'))
    notifier.notify()
    await Promise.all([a, b])
    expect(order.sort()).toEqual(['a', 'b'])
    const pending = notifier.wait(3_600_000)
    expect(notifier.closed).toBe(false)
    notifier.close()
    await pending
    // After close a wait of an hour returns at once: the test would hang otherwise.
    await notifier.wait(3_600_000)
    expect(notifier.closed).toBe(true)
  })

  it('an aborted signal ends the wait', async () => {
    const notifier = createNotifier()
    const controller = new AbortController()
    const waiting = notifier.wait(3_600_000, controller.signal)
    controller.abort()
    await waiting
  })
})
