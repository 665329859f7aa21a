import fc from 'fast-check'
import { expect, it } from 'vitest'
import { MinHeap } from '../../src/agent/min-heap.ts'

it('pops keys in ascending order whatever the insertion order', () => {
  fc.assert(
    fc.property(fc.array(fc.integer()), (keys) => {
      const heap = new MinHeap<number>()
      for (const k of keys) heap.push(k, k)
      const out: number[] = []
      while (heap.size > 0) out.push(heap.pop()!.value)
      expect(out).toEqual([...keys].sort((a, b) => a - b))
    }),
  )
})
