// Clients writing to a hub that may die under them. Result posters retry each result with its run id
// until the hub acknowledges it (the hub is idempotent by run id). The incident writer has no such id
// (the public API lets the hub choose it), so after a lost answer it looks for what it wrote before
// writing again. Every acknowledgement records which hub generation gave it, so a test can ask what a
// killed hub had acknowledged.

import { randomUUID } from 'node:crypto'

export interface HubAnswer {
  status: number | 'network' | 'aborted'
  body: unknown
  message: string
  /** The Retry-After header of an answer that had one. */
  retryAfter?: string | null
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
  /** Generation that answered 201, or -1 when the answer was lost and the incident was found stored. */
  ackedIn: number
  /** Same for the second update (-1: found stored after a lost answer). */
  updateAckedIn: number
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
  return async (method: string, pathname: string, body?: unknown): Promise<HubAnswer> => {
    try {
      const response = await fetch(`${url}${pathname}`, {
        method,
        headers: {
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

  const send = async (route: string, method: string, pathname: string, body?: unknown) => {
    inFlight += 1
    try {
      const answer = await call(method, pathname, body)
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

  /** What the writer does after a lost answer: looks, and writes again only if nothing is there. */
  const writeOnce = async <T>(
    route: string,
    write: () => Promise<HubAnswer>,
    written: (answer: HubAnswer) => T | undefined,
    lookUp: () => Promise<T | null | 'unknown'>,
  ): Promise<{ value: T; ackedIn: number } | undefined> => {
    let unsure = false
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !halted; attempt += 1) {
      if (unsure) {
        const found = await lookUp()
        if (found === 'unknown') {
          await pause(retryPause)
          continue
        }
        if (found !== null) return { value: found, ackedIn: -1 }
        unsure = false
      }
      const answer = await write()
      const value = written(answer)
      if (value !== undefined) return { value, ackedIn: options.generation() }
      if (answer.status === 'network') unsure = true
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
        () =>
          send('incidents', 'POST', '/v1/status-pages/incidents', {
            name: token,
            severity: 'MINOR',
            description: `first update of ${token}`,
          }),
        (answer) => (answer.status === 201 ? (answer.body as { id: string }).id : undefined),
        async () => {
          const page = await call('GET', '/v1/status-pages/incidents?limit=100')
          if (page.status !== 200) return 'unknown'
          const entries = (page.body as { entries: Array<{ id: string; name: string }> }).entries
          return entries.find((e) => e.name === token)?.id ?? null
        },
      )
      if (created === undefined) return
      const second = `second update of ${token}`
      const updated = await writeOnce(
        'incident-updates',
        () =>
          send('incident-updates', 'POST', `/v1/status-pages/incidents/${created.value}/incident-updates`, {
            description: second,
            status: 'IDENTIFIED',
          }),
        (answer) => (answer.status === 200 ? true : undefined),
        async () => {
          const incident = await call('GET', `/v1/status-pages/incidents/${created.value}`)
          if (incident.status !== 200) return 'unknown'
          const updates = (incident.body as { incidentUpdates: Array<{ description: string }> })
            .incidentUpdates
          return updates.some((u) => u.description === second) ? true : null
        },
      )
      if (updated === undefined) return
      incidents.push({ token, id: created.value, ackedIn: created.ackedIn, updateAckedIn: updated.ackedIn })
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
