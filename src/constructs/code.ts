// The `code` of Playwright-based checks (and the scripts of API checks): exactly one of a file
// (`entrypoint`, relative to the check file) or inline `content`.

import { readFileSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { CheckCode } from '../model/checks.ts'
import type { Report } from './diagnostics.ts'
import { checkKnownKeys, checkString, isRecord, show } from './values.ts'

export interface CodeRules {
  /** Endings the entrypoint's file name must have, e.g. ['.spec.ts', '.spec.js']. */
  entrypointEndings: readonly string[]
}

export const SPEC_ENDINGS = ['.spec.ts', '.spec.js'] as const

export function validateCode(
  report: Report,
  property: string,
  value: unknown,
  checkFile: string,
  rules: CodeRules,
): void {
  const all = rules.entrypointEndings
  const endings = all.length > 1 ? `${all.slice(0, -1).join(', ')} or ${all.at(-1)}` : (all[0] ?? '')
  if (value === undefined) {
    report(property, `is required: {entrypoint: 'a ${endings} file'} or {content: 'inline test code'}`)
    return
  }
  if (!isRecord(value)) {
    report(property, `must be {entrypoint} or {content}, got ${show(value)}`)
    return
  }
  checkKnownKeys(report, property, value, ['entrypoint', 'content'])
  const hasEntrypoint = value.entrypoint !== undefined
  const hasContent = value.content !== undefined
  if (hasEntrypoint && hasContent) {
    report(property, 'has both entrypoint and content; give exactly one')
    return
  }
  if (!hasEntrypoint && !hasContent) {
    report(property, `has neither entrypoint nor content; give exactly one (entrypoint: a ${endings} file)`)
    return
  }
  if (hasContent) {
    checkString(report, `${property}.content`, value.content, { required: true })
    return
  }
  const at = `${property}.entrypoint`
  if (!checkString(report, at, value.entrypoint, { required: true })) return
  const entrypoint = value.entrypoint as string
  if (!rules.entrypointEndings.some((ending) => entrypoint.endsWith(ending))) {
    report(at, `must name a ${endings} file, got ${show(entrypoint)}`)
    return
  }
  const file = resolveEntrypoint(entrypoint, checkFile)
  const problem = fileProblem(file)
  if (problem) report(at, `${show(entrypoint)} ${problem} (looked for ${file})`)
}

function fileProblem(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return 'is not a file'
    // Whitespace only is as good as empty: Playwright would find no test in it.
    if (readFileSync(file, 'utf8').trim() === '') return 'is empty'
    return undefined
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (error as Error).message})`
  }
}

export function resolveEntrypoint(entrypoint: string, checkFile: string): string {
  return resolve(dirname(checkFile), entrypoint)
}

/** The definition's form: an entrypoint becomes absolute, so runners need not know the check file. */
export function resolveCode(code: CheckCode, checkFile: string): CheckCode {
  if (code.entrypoint !== undefined) return { entrypoint: resolveEntrypoint(code.entrypoint, checkFile) }
  return { content: code.content ?? '' }
}
