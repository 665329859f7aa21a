// The seed's public API: status-page incidents, heartbeat availability, check-session completion.

import type { FastifyInstance } from 'fastify'
import { availability } from '../../heartbeat/availability.ts'
import type { Notifier } from '../notifier.ts'
import { decodeCursor } from '../store/cursor.ts'
import type { IncidentStatus, SessionStatus } from '../store/model.ts'
import type { HubStore } from '../store/store.ts'
import { HttpError } from './errors.ts'
import { idempotentRequest, sendIdempotent, serialiserOf, withIdempotencyKey } from './idempotency-key.ts'
import type { RouteTable } from './route-table.ts'
import {
  accountHeader,
  availabilitySchema,
  errorSchema,
  idParam,
  incidentListSchema,
  incidentSchema,
  incidentUpdateBody,
  incidentUpdateSchema,
  pageQuery,
  sessionStatusSchema,
} from './schemas.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema }

export interface PublicRouteDeps {
  store: HubStore
  notifier: Notifier
  now: () => number
}

export function cursorOrThrow(text: string | undefined) {
  if (text === undefined) return undefined
  const cursor = decodeCursor(text)
  if (cursor === undefined) {
    throw new HttpError(
      400,
      `querystring/nextId ${JSON.stringify(text)} is not a cursor: pass the nextId of the previous page`,
    )
  }
  return cursor
}

function timeOrThrow(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback
  const time = Date.parse(text)
  if (!Number.isFinite(time)) {
    throw new HttpError(
      400,
      `querystring/${name} ${JSON.stringify(text)} is not a date: use ISO 8601, e.g. 2026-04-01T00:00:00Z`,
    )
  }
  return time
}

export function registerPublicRoutes(app: FastifyInstance, table: RouteTable, deps: PublicRouteDeps): void {
  const { store } = deps

  table.add(app, {
    method: 'GET',
    url: '/v1/status-pages/incidents',
    schema: {
      summary: 'The latest incidents, newest first, paginated',
      querystring: pageQuery,
      headers: accountHeader,
      response: { 200: incidentListSchema, ...errors },
    },
    handler: async (request) => {
      const query = request.query as { limit: number; nextId?: string }
      const page = await store.listIncidents(request.accountId, query.limit, cursorOrThrow(query.nextId))
      return { length: page.entries.length, entries: page.entries, nextId: page.nextCursor }
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/status-pages/incidents/:incidentId',
    schema: {
      summary: 'One incident with its services and updates',
      params: idParam('incidentId'),
      headers: accountHeader,
      response: { 200: incidentSchema, ...errors },
    },
    handler: async (request) => {
      const { incidentId } = request.params as { incidentId: string }
      const incident = await store.getIncident(request.accountId, incidentId)
      if (incident === null) throw new HttpError(404, `incident ${JSON.stringify(incidentId)} not found`)
      return incident
    },
  })

  table.add(app, {
    method: 'POST',
    url: '/v1/status-pages/incidents/:incidentId/incident-updates',
    schema: {
      summary: "Adds an update; the incident's lastUpdateStatus and updated_at follow it",
      params: idParam('incidentId'),
      headers: withIdempotencyKey(accountHeader),
      body: incidentUpdateBody,
      response: { 200: incidentUpdateSchema, ...errors, 422: errorSchema },
    },
    handler: async (request, reply) => {
      const { incidentId } = request.params as { incidentId: string }
      const body = request.body as {
        description: string
        status?: IncidentStatus
        publicIncidentUpdateDate?: string
        notifySubscribers: boolean
      }
      const once = idempotentRequest(request, 'POST /v1/status-pages/incidents/:incidentId/incident-updates')
      const input = {
        description: body.description,
        status: body.status,
        publicIncidentUpdateDate:
          body.publicIncidentUpdateDate === undefined ? undefined : Date.parse(body.publicIncidentUpdateDate),
        notifySubscribers: body.notifySubscribers,
      }
      const notFound = () => new HttpError(404, `incident ${JSON.stringify(incidentId)} not found`)
      if (once === undefined) {
        const update = await store.addIncidentUpdate(request.accountId, incidentId, input)
        if (update === null) throw notFound()
        return update
      }
      reply.code(200)
      const outcome = await store.addIncidentUpdateOnce(
        request.accountId,
        incidentId,
        input,
        once,
        serialiserOf(reply),
      )
      const sent = sendIdempotent(reply, outcome)
      if (sent === false) throw notFound()
      return sent
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/checks/heartbeats/:checkId/availability',
    schema: {
      summary: 'Success ratio of a heartbeat over a window and the window of equal length before it',
      params: idParam('checkId'),
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          startTime: { type: 'string', maxLength: 40, description: 'default: 24 hours before endTime' },
          endTime: { type: 'string', maxLength: 40, description: 'default: now' },
        },
      },
      headers: accountHeader,
      response: { 200: availabilitySchema, ...errors },
    },
    handler: async (request) => {
      const { checkId } = request.params as { checkId: string }
      const query = request.query as { startTime?: string; endTime?: string }
      const endTime = timeOrThrow('endTime', query.endTime, deps.now())
      const startTime = timeOrThrow('startTime', query.startTime, endTime - DAY_MS)
      if (startTime >= endTime) {
        throw new HttpError(
          400,
          `querystring/startTime ${JSON.stringify(query.startTime)} must be before endTime (${new Date(endTime).toISOString()})`,
        )
      }
      const events = await store.heartbeatEvents(
        request.accountId,
        checkId,
        startTime - (endTime - startTime),
        endTime,
      )
      return availability(events, startTime, endTime)
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v2/check-sessions/:checkSessionId/completion',
    schema: {
      summary: 'Waits for a check session to finish; 408 while it still runs (call again)',
      params: idParam('checkSessionId'),
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { maxWaitSeconds: { type: 'integer', minimum: 1, maximum: 30, default: 30 } },
      },
      headers: accountHeader,
      response: { 200: sessionStatusSchema, 408: errorSchema, ...errors },
    },
    handler: async (request, reply) => {
      const { checkSessionId } = request.params as { checkSessionId: string }
      const { maxWaitSeconds } = request.query as { maxWaitSeconds: number }
      const deadline = deps.now() + maxWaitSeconds * 1000
      const gone = new AbortController()
      // The response closing before we answered means the client went away.
      reply.raw.once('close', () => gone.abort())
      for (;;) {
        const status: SessionStatus | null = await store.sessionStatus(request.accountId, checkSessionId)
        if (status === null)
          throw new HttpError(404, `check session ${JSON.stringify(checkSessionId)} not found`)
        if (status !== 'RUNNING') return reply.code(200).type('application/json').send(JSON.stringify(status))
        const left = deadline - deps.now()
        if (left <= 0 || gone.signal.aborted || deps.notifier.closed) break
        await deps.notifier.wait(Math.min(left, 1000), gone.signal)
      }
      throw new HttpError(
        408,
        `check session ${checkSessionId} is still running after ${maxWaitSeconds} s; call again`,
      )
    },
  })
}
