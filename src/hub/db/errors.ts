// Database failures the HTTP layer answers on their own terms instead of a 500: the database out of
// reach or overloaded (503: the caller retries, nothing was stored or the retry is idempotent) and a
// value the database cannot hold (400).

export class DatabaseUnavailableError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the hub's database is unavailable (${reason}); try again shortly`, options)
    this.name = 'DatabaseUnavailableError'
  }
}

/**
 * The database is up but the hub could not get a connection to it in time: every connection of its
 * pool stayed in use for the whole connection timeout. Overload (too many requests for the pool, or
 * statements that run long), answered 503 like an outage, and worded as what it is.
 */
export class DatabaseOverloadedError extends DatabaseUnavailableError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options)
    this.message = `the hub's database is overloaded (${reason}); try again shortly`
    this.name = 'DatabaseOverloadedError'
  }
}

export class UnstorableValueError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`a text value holds a character the database cannot store (${reason})`, options)
    this.name = 'UnstorableValueError'
  }
}
