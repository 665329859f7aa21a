// Check sessions (trigger, cancel), check results and private locations.

import type { FastifyInstance } from 'fastify'
import type { QueuedCheck } from '../store/jobs.ts'
import { HttpError } from './errors.ts'
import type { ManagementRouteDeps } from './management-routes.ts'
import { cursorOrThrow } from './public-routes.ts'
import type { RouteTable } from './route-table.ts'
import {
  accountHeader,
  checkDefinitionSchema,
  checkResultPageSchema,
  errorSchema,
  idParam,
  pageQuery,
} from './schemas.ts'

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema }

export function registerSessionRoutes(
  app: FastifyInstance,
  table: RouteTable,
  deps: ManagementRouteDeps,
): void {
  const { store } = deps

  table.add(app, {
    method: 'POST',
    url: '/v2/check-sessions/trigger',
    schema: {
      summary: 'Starts a check session: one run of each check, claimed by agents at the location',
      headers: accountHeader,
      body: {
        type: 'object',
        required: ['checks'],
        additionalProperties: false,
        properties: {
          checks: { type: 'array', minItems: 1, maxItems: 1000, items: checkDefinitionSchema },
          location: { type: 'string', minLength: 1, maxLength: 100, default: deps.defaultLocation },
        },
      },
      response: {
        201: {
          type: 'object',
          required: ['checkSessionId', 'runIds'],
          properties: {
            checkSessionId: { type: 'string' },
            runIds: { type: 'array', items: { type: 'string' } },
          },
        },
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const body = request.body as { checks: QueuedCheck[]; location: string }
      const session = await store.createSession(request.accountId, body.checks, body.location)
      deps.notifier.notify()
      return reply.code(201).send({ checkSessionId: session.id, runIds: session.runIds })
    },
  })

  table.add(app, {
    method: 'POST',
    url: '/v2/check-sessions/:checkSessionId/cancel',
    schema: {
      params: idParam('checkSessionId'),
      headers: accountHeader,
      response: { 200: { type: 'string' }, ...errors },
    },
    handler: async (request, reply) => {
      const { checkSessionId } = request.params as { checkSessionId: string }
      const status = await store.cancelSession(request.accountId, checkSessionId)
      if (status === null)
        throw new HttpError(404, `check session ${JSON.stringify(checkSessionId)} not found`)
      deps.notifier.notify()
      return reply.code(200).type('application/json').send(JSON.stringify(status))
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/check-results/:checkId',
    schema: {
      summary: 'Results of a check, newest first, paginated like the incident list',
      params: idParam('checkId'),
      querystring: pageQuery,
      headers: accountHeader,
      response: { 200: checkResultPageSchema, ...errors },
    },
    handler: async (request) => {
      const { checkId } = request.params as { checkId: string }
      const query = request.query as { limit: number; nextId?: string }
      const page = await store.listResults(
        request.accountId,
        checkId,
        query.limit,
        cursorOrThrow(query.nextId),
      )
      return { length: page.entries.length, entries: page.entries, nextId: page.nextCursor }
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/locations',
    schema: {
      summary: 'Private locations with agents; unavailable when no agent was seen for 10 minutes',
      headers: accountHeader,
      response: {
        200: {
          type: 'array',
          items: {
            type: 'object',
            required: ['location', 'agents', 'lastSeen', 'available'],
            properties: {
              location: { type: 'string' },
              agents: { type: 'integer' },
              lastSeen: { type: 'string', format: 'date-time' },
              available: { type: 'boolean' },
            },
          },
        },
        ...errors,
      },
    },
    handler: async (request) => store.locations(request.accountId, deps.locationTimeoutMs),
  })
}
