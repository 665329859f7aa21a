// The agent's life: starting -> ready -> draining -> stopped. Only forward moves are allowed, so
// a late "ready" can never undo a shutdown that has begun.

export const LifecycleState = ['starting', 'ready', 'draining', 'stopped'] as const
export type LifecycleState = (typeof LifecycleState)[number]

export interface Lifecycle {
  state(): LifecycleState
  /** Moves forward to `to`; a move backwards or sideways is ignored and returns false. */
  advance(to: LifecycleState): boolean
}

export function createLifecycle(onChange?: (from: LifecycleState, to: LifecycleState) => void): Lifecycle {
  let current: LifecycleState = 'starting'
  return {
    state: () => current,
    advance(to) {
      if (LifecycleState.indexOf(to) <= LifecycleState.indexOf(current)) return false
      const from = current
      current = to
      onChange?.(from, to)
      return true
    },
  }
}
