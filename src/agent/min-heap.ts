/** A binary min-heap keyed by a number: the local schedule keeps thousands of due times in one. */
export class MinHeap<T> {
  readonly #items: { key: number; value: T }[] = []

  get size(): number {
    return this.#items.length
  }

  peekKey(): number | undefined {
    return this.#items[0]?.key
  }

  peek(): { key: number; value: T } | undefined {
    return this.#items[0]
  }

  push(key: number, value: T): void {
    const items = this.#items
    items.push({ key, value })
    let i = items.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (items[parent]!.key <= items[i]!.key) break
      ;[items[parent], items[i]] = [items[i]!, items[parent]!]
      i = parent
    }
  }

  pop(): { key: number; value: T } | undefined {
    const items = this.#items
    const top = items[0]
    const last = items.pop()
    if (top === undefined || last === undefined || items.length === 0) return top
    items[0] = last
    let i = 0
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let smallest = i
      if (left < items.length && items[left]!.key < items[smallest]!.key) smallest = left
      if (right < items.length && items[right]!.key < items[smallest]!.key) smallest = right
      if (smallest === i) break
      ;[items[smallest], items[i]] = [items[i]!, items[smallest]!]
      i = smallest
    }
    return top
  }
}
