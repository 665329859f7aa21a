/** A bad setting: names the variable, the value and what is allowed. Start-up exits 2 on it. */
export class ConfigError extends Error {
  readonly variable: string
  constructor(variable: string, shownValue: string, allowed: string) {
    super(`${variable}=${JSON.stringify(shownForError(shownValue))} is not valid: ${allowed}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}

/**
 * The value as an error line may show it: a password in a URL's user part (a proxy's, say) is
 * replaced, and a huge value is cut so the error stays one readable line.
 */
function shownForError(value: string): string {
  // Token by token with an anchored pattern: linear in the value's length, however long it is.
  const redacted = value
    .split(/([\s/])/)
    .map((token) => (token.includes('@') ? token.replace(/^([^:@]*):[^@]*@/, '$1:***@') : token))
    .join('')
  return redacted.length > 80 ? `${redacted.slice(0, 77)}... (${redacted.length} characters)` : redacted
}
