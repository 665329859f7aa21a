import { expect, it } from 'vitest'
import { createLifecycle } from '../../src/agent/lifecycle.ts'

it('moves only forward through starting, ready, draining, stopped', () => {
  const seen: string[] = []
  const lifecycle = createLifecycle((from, to) => seen.push(`${from}->${to}`))
  expect(lifecycle.state()).toBe('starting')
  expect(lifecycle.advance('ready')).toBe(true)
  expect(lifecycle.advance('draining')).toBe(true)
  expect(lifecycle.advance('ready')).toBe(false)
  expect(lifecycle.state()).toBe('draining')
  expect(lifecycle.advance('stopped')).toBe(true)
  expect(seen).toEqual(['starting->ready', 'ready->draining', 'draining->stopped'])
})
