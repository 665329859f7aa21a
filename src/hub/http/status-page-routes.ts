// Services, status pages, creating incidents and webhook subscribers to incident updates.

import type { FastifyInstance } from 'fastify'
import { UnknownReference } from '../store/incidents.ts'
import type { IncidentSeverity, IncidentStatus } from '../store/model.ts'
import { HttpError } from './errors.ts'
import { idempotentRequest, sendIdempotent, serialiserOf, withIdempotencyKey } from './idempotency-key.ts'
import type { ManagementRouteDeps } from './management-routes.ts'
import type { RouteTable } from './route-table.ts'
import {
  accountHeader,
  errorSchema,
  idParam,
  incidentSchema,
  newIncidentBody,
  serviceSchema,
} from './schemas.ts'

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema }
const name = { type: 'string', minLength: 1, maxLength: 255 } as const
const statusPageSchema = {
  type: 'object',
  required: ['id', 'name', 'services', 'created_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    services: { type: 'array', items: serviceSchema },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const
function unknownReference(error: unknown): never {
  if (error instanceof UnknownReference) throw new HttpError(400, `body/${error.field}: ${error.message}`)
  throw error
}

export function registerStatusPageRoutes(
  app: FastifyInstance,
  table: RouteTable,
  deps: ManagementRouteDeps,
): void {
  const { store } = deps

  table.add(app, {
    method: 'POST',
    url: '/v1/services',
    schema: {
      headers: accountHeader,
      body: { type: 'object', required: ['name'], additionalProperties: false, properties: { name } },
      response: { 201: serviceSchema, ...errors },
    },
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(await store.createService(request.accountId, (request.body as { name: string }).name)),
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/services',
    schema: { headers: accountHeader, response: { 200: { type: 'array', items: serviceSchema }, ...errors } },
    handler: async (request) => store.listServices(request.accountId),
  })

  table.add(app, {
    method: 'POST',
    url: '/v1/status-pages',
    schema: {
      headers: accountHeader,
      body: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name,
          services: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 100, default: [] },
        },
      },
      response: { 201: statusPageSchema, ...errors },
    },
    handler: async (request, reply) => {
      const body = request.body as { name: string; services: string[] }
      const page = await store
        .createStatusPage(request.accountId, body.name, body.services)
        .catch(unknownReference)
      return reply.code(201).send(page)
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/status-pages',
    schema: {
      headers: accountHeader,
      response: { 200: { type: 'array', items: statusPageSchema }, ...errors },
    },
    handler: async (request) => store.listStatusPages(request.accountId),
  })

  table.add(app, {
    method: 'POST',
    url: '/v1/status-pages/incidents',
    schema: {
      summary: 'Creates an incident (lastUpdateStatus INVESTIGATING, or the status of its first update)',
      headers: withIdempotencyKey(accountHeader),
      body: newIncidentBody,
      response: { 201: incidentSchema, ...errors, 422: errorSchema },
    },
    handler: async (request, reply) => {
      const body = request.body as {
        name: string
        severity: IncidentSeverity
        services: string[]
        description?: string
        status?: IncidentStatus
        notifySubscribers: boolean
      }
      const once = idempotentRequest(request, 'POST /v1/status-pages/incidents')
      if (body.status !== undefined && body.description === undefined) {
        throw new HttpError(
          400,
          'body/description is required when body/status is given (it is the first update)',
        )
      }
      const input = {
        name: body.name,
        severity: body.severity,
        serviceIds: body.services,
        firstUpdate:
          body.description === undefined
            ? undefined
            : {
                description: body.description,
                status: body.status,
                notifySubscribers: body.notifySubscribers,
              },
      }
      if (once === undefined) {
        const incident = await store.createIncident(request.accountId, input).catch(unknownReference)
        return reply.code(201).send(incident)
      }
      // The code first: the recorded text is what the 201 schema serialises.
      reply.code(201)
      const outcome = await store
        .createIncidentOnce(request.accountId, input, once, serialiserOf(reply))
        .catch(unknownReference)
      return sendIdempotent(reply, outcome)
    },
  })

  const subscriberSchema = {
    type: 'object',
    required: ['id', 'url', 'created_at'],
    properties: {
      id: { type: 'string' },
      url: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
    },
  } as const

  table.add(app, {
    method: 'POST',
    url: '/v1/status-pages/subscribers',
    schema: {
      summary: 'Adds a webhook subscriber: incident updates with notifySubscribers are POSTed to its URL',
      headers: accountHeader,
      body: {
        type: 'object',
        required: ['url'],
        additionalProperties: false,
        properties: { url: { type: 'string', minLength: 8, maxLength: 2000, pattern: '^https?://' } },
      },
      response: { 201: subscriberSchema, ...errors },
    },
    handler: async (request, reply) => {
      const { url } = request.body as { url: string }
      if (!URL.canParse(url))
        throw new HttpError(400, `body/url ${JSON.stringify(url)} is not an absolute http(s) URL`)
      return reply.code(201).send(await store.createSubscriber(request.accountId, url))
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/status-pages/subscribers',
    schema: {
      headers: accountHeader,
      response: { 200: { type: 'array', items: subscriberSchema }, ...errors },
    },
    handler: async (request) => store.listSubscribers(request.accountId),
  })

  table.add(app, {
    method: 'DELETE',
    url: '/v1/status-pages/subscribers/:subscriberId',
    schema: {
      params: idParam('subscriberId'),
      headers: accountHeader,
      response: { 204: { type: 'null' }, ...errors },
    },
    handler: async (request, reply) => {
      const { subscriberId } = request.params as { subscriberId: string }
      if (!(await store.deleteSubscriber(request.accountId, subscriberId))) {
        throw new HttpError(404, `subscriber ${JSON.stringify(subscriberId)} not found`)
      }
      return reply.code(204).send()
    },
  })
}
