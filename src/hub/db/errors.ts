// Database failures the HTTP layer answers on their own terms instead of a 500: the database out of
// reach (503: the caller retries, nothing was stored or the retry is idempotent) and a value the
// database cannot hold (400).

export class DatabaseUnavailableError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the hub's database is unavailable (${reason}); try again shortly`, options)
    this.name = 'DatabaseUnavailableError'
  }
}

export class UnstorableValueError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`a text value holds a character the database cannot store (${reason})`, options)
    this.name = 'UnstorableValueError'
  }
}
