// How talking to the hub can fail. Transient: the network, the hub restarting or overloaded; the
// caller backs off and tries again. Rejected: the hub refused the API key or the account; retrying
// cannot help, so the agent stops with this message. Refused: the hub rejected one request for good
// (a 4xx other than auth), e.g. a result it considers invalid.

export class HubUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'HubUnavailableError'
  }
}

export class HubRejectedKeyError extends Error {
  readonly status: number
  constructor(status: number, hubUrl: string, detail: string) {
    super(
      status === 401
        ? `the hub at ${hubUrl} rejected the API key (401: ${detail}); check API_KEY`
        : `the hub at ${hubUrl} refused this API key for the account (403: ${detail}); check SERVICE_ACCOUNT_ID and API_KEY`,
    )
    this.name = 'HubRejectedKeyError'
    this.status = status
  }
}

export class HubRefusedError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.name = 'HubRefusedError'
    this.status = status
  }
}
