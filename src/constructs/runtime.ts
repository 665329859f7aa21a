// Runtime ids name a pinned set of check dependencies (runtimes/<id>). Multistep checks need 2023.09
// or later (the seed); the agent ships exactly the ids in RuntimeId.

import { RuntimeId } from '../model/checks.ts'
import type { Report } from './diagnostics.ts'
import { listOf, show } from './values.ts'

export const MIN_RUNTIME: RuntimeId = '2023.09'
const RUNTIME_ID_PATTERN = /^\d{4}\.\d{2}$/

export function isRuntimeId(value: unknown): value is RuntimeId {
  return typeof value === 'string' && (RuntimeId as readonly string[]).includes(value)
}

/** `kind` names what needs the runtime, e.g. "multistep checks". */
export function validateRuntimeId(report: Report, property: string, value: unknown, kind: string): void {
  if (value === undefined || isRuntimeId(value)) return
  if (typeof value === 'string' && RUNTIME_ID_PATTERN.test(value) && value < MIN_RUNTIME) {
    report(
      property,
      `runtime ${value} does not support ${kind}: they need ${MIN_RUNTIME} or later (${listOf(RuntimeId)})`,
    )
    return
  }
  report(property, `unknown runtime ${show(value)}; known: ${listOf(RuntimeId)}`)
}
