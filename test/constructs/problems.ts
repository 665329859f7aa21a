// Helpers for construct tests: the problems a check reports, as `property: reason` lines.

import type { Check, CheckContext } from '../../src/constructs/check.ts'
import { Diagnostics } from '../../src/constructs/diagnostics.ts'

export const CHECK_FILE = '/checks/site.check.ts'

export function contextOf(overrides: Partial<CheckContext> = {}): CheckContext {
  return { checkFile: CHECK_FILE, ...overrides }
}

export function problemsOf(check: Check, overrides: Partial<CheckContext> = {}): string[] {
  const diagnostics = new Diagnostics()
  check.validate(diagnostics, contextOf(overrides))
  return diagnostics.items.map((d) => `${d.property}: ${d.reason}`)
}
