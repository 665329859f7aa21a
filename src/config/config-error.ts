/** A bad setting: names the variable, the value and what is allowed. Start-up exits 2 on it. */
export class ConfigError extends Error {
  readonly variable: string
  constructor(variable: string, shownValue: string, allowed: string) {
    super(`${variable}=${JSON.stringify(shownValue)} is not valid: ${allowed}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}
