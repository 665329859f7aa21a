// The step names a spec declares, read from its source. A run that fails at step 2 never reaches the
// `test.step` call of step 3, so Playwright cannot report it; the source can. Names built at run
// time (template literals with ${...}, variables) cannot be known and are left out.

const STEP_CALL = /\btest\s*\.\s*step\s*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g

export function declaredStepNames(source: string): string[] {
  const names: string[] = []
  for (const m of source.matchAll(STEP_CALL)) {
    const quote = m[1]
    const raw = m[2] ?? ''
    if (quote === '`' && raw.includes('${')) continue
    names.push(raw.replace(/\\(.)/g, '$1'))
  }
  return names
}
