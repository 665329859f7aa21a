// Clients writing to a hub that may die under them. Result posters retry each result with its run id
// until the hub acknowledges it (the hub is idempotent by run id). The incident writer sends each
// write with an Idempotency-Key of its own and retries it blindly with the same key: a write whose
// answer was lost is answered again (Idempotent-Replayed: true), not written twice. Every
// acknowledgement records which hub generation gave it, so a test can ask what a killed hub had
// acknowledged.

import { randomUUID } from 'node:crypto'

export interface HubAnswer {
  status: number | 'network' | 'aborted'
  body: unknown
  message: string
  /** The Retry-After header of an answer that had one. */
  retryAfter?: string | null
  /** The answer carried Idempotent-Replayed: true (an earlier attempt with its key wrote). */
  replayed?: boolean
}

export interface PostedResult {
  checkId: string
  /** Hub generation that acknowledged it (2xx). */
  ackedIn: number
  /** 201: stored by this request; 200: already stored, by an earlier attempt whose answer was lost. */
  status: 200 | 201
  /** Attempts that got no answer (the hub died, or was down). */
  lostAnswers: number
}

export interface WrittenIncident {
  token: string
  id: string
  /** Generation that answered 201 (a replay included). */
  ackedIn: number
  /** Same for the second update. */
  updateAckedIn: number
  /** The creation was answered as a replay: an attempt whose answer was lost had written it. */
  replayed: boolean
  /** Same for the second update. */
  updateReplayed: boolean
}

export interface WriteLoadOptions {
  url: string
  key: string
  /** The hub generation now serving (incremented by the test on each restart). */
  generation: () => number
  /** Concurrent result posters. */
  posters: number
  /** Pause before retrying a request that got no answer. */
  retryPauseMs?: number
}

const REQUEST_LIMIT_MS = 20_000
/** At 50-100 ms a try, well past any restart this test waits for. */
const MAX_ATTEMPTS = 600

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function resultBody(
  id: string,
  checkId: string,
  agentId: string,
  location = 'load',
): Record<string, unknown> {
  return {
    id,
    checkId,
    checkType: 'URL',
    name: checkId,
    status: 'passed',
    startedAt: new Date().toISOString(),
    durationMs: 3,
    location,
    attempt: 1,
    assertions: [],
    artifacts: [],
    agent: { id: agentId, version: '0.0.0', flavor: 'uptime' },
  }
}

/** Calls the hub as a client does; a request is given up after `limitMs` (a hub that hangs). */
export function createHubCaller(url: string, key: string, limitMs = REQUEST_LIMIT_MS) {
  return async (
    method: string,
    pathname: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HubAnswer> => {
    try {
      const response = await fetch(`${url}${pathname}`, {
        method,
        headers: {
          ...headers,
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(limitMs),
      })
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        // not JSON: the text is the body
      }
      const message =
        typeof parsed === 'object' && parsed !== null && 'message' in parsed ? String(parsed.message) : text
      return {
        status: response.status,
        body: parsed,
        message,
        retryAfter: response.headers.get('retry-after'),
        replayed: response.headers.get('idempotent-replayed') === 'true',
      }
    } catch (error) {
      const name = (error as Error).name
      // A hub that hangs shows up as 'aborted', which tests refuse; a dead one as 'network'.
      return {
        status: name === 'TimeoutError' || name === 'AbortError' ? 'aborted' : 'network',
        body: undefined,
        message: String((error as { cause?: unknown }).cause ?? error),
      }
    }
  }
}

export function startWriteLoad(options: WriteLoadOptions) {
  const call = createHubCaller(options.url, options.key)
  const retryPause = options.retryPauseMs ?? 50
  const results = new Map<string, PostedResult>()
  const abandoned: string[] = []
  const incidents: WrittenIncident[] = []
  /** Answers that were neither 2xx nor a dead hub: the hub must never give one here. */
  const refused: Array<{ route: string; status: HubAnswer['status']; message: string }> = []
  let inFlight = 0
  let stopping = false
  // Set when a test gives up: retries end too, so cleanup is not held up by a hub that is gone.
  let halted = false

  const send = async (
    route: string,
    method: string,
    pathname: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => {
    inFlight += 1
    try {
      const answer = await call(method, pathname, body, headers)
      if (answer.status !== 'network' && (typeof answer.status !== 'number' || answer.status >= 300)) {
        refused.push({ route, status: answer.status, message: answer.message })
      }
      return answer
    } finally {
      inFlight -= 1
    }
  }

  /** Posts one result, again and again with the same run id until acknowledged. */
  const postResult = async (id: string, checkId: string, agentId: string, onAck?: () => void) => {
    const body = resultBody(id, checkId, agentId)
    let lostAnswers = 0
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !halted; attempt += 1) {
      const answer = await send('results', 'POST', '/v1/agent/results', body)
      if (answer.status === 200 || answer.status === 201) {
        results.set(id, { checkId, ackedIn: options.generation(), status: answer.status, lostAnswers })
        onAck?.()
        return
      }
      if (answer.status === 'network') lostAnswers += 1
      await pause(retryPause)
    }
    abandoned.push(id)
  }

  const poster = async (n: number) => {
    for (let r = 0; r < 5000 && !stopping; r += 1) {
      await postResult(randomUUID(), `load-${n}`, `load-agent-${n}`)
      await pause(10)
    }
  }

  /** Sends one write with its own Idempotency-Key, the same key on every attempt, until answered. */
  const writeOnce = async <T>(
    route: string,
    write: (headers: Record<string, string>) => Promise<HubAnswer>,
    written: (answer: HubAnswer) => T | undefined,
  ): Promise<{ value: T; ackedIn: number; replayed: boolean } | undefined> => {
    const headers = { 'idempotency-key': `${route}-${randomUUID()}` }
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !halted; attempt += 1) {
      const answer = await write(headers)
      const value = written(answer)
      if (value !== undefined) {
        return { value, ackedIn: options.generation(), replayed: answer.replayed === true }
      }
      await pause(retryPause)
    }
    abandoned.push(route)
    return undefined
  }

  const writer = async () => {
    for (let i = 0; i < 2000 && !stopping; i += 1) {
      const token = `incident-${i}-${randomUUID().slice(0, 8)}`
      const created = await writeOnce(
        'incidents',
        (headers) =>
          send(
            'incidents',
            'POST',
            '/v1/status-pages/incidents',
            { name: token, severity: 'MINOR', description: `first update of ${token}` },
            headers,
          ),
        (answer) => (answer.status === 201 ? (answer.body as { id: string }).id : undefined),
      )
      if (created === undefined) return
      const updated = await writeOnce(
        'incident-updates',
        (headers) =>
          send(
            'incident-updates',
            'POST',
            `/v1/status-pages/incidents/${created.value}/incident-updates`,
            { description: `second update of ${token}`, status: 'IDENTIFIED' },
            headers,
          ),
        (answer) => (answer.status === 200 ? true : undefined),
      )
      if (updated === undefined) return
      incidents.push({
        token,
        id: created.value,
        ackedIn: created.ackedIn,
        updateAckedIn: updated.ackedIn,
        replayed: created.replayed,
        updateReplayed: updated.replayed,
      })
      await pause(10)
    }
  }

  const running = Promise.all([...Array.from({ length: options.posters }, (_, n) => poster(n)), writer()])
  return {
    results,
    incidents,
    refused,
    abandoned,
    postResult,
    inFlight: () => inFlight,
    /** Lets every write already started finish (each until acknowledged), then resolves. */
    async stop(): Promise<void> {
      stopping = true
      await running
    },
    /** Ends every loop at its next step, retries included (cleanup after a failed test). */
    async halt(): Promise<void> {
      stopping = true
      halted = true
      await running
    },
  }
}
