// What makes the public API real: accounts and API keys, services and status pages, creating
// incidents, triggering and cancelling check sessions, querying check results, locations.

import type { FastifyInstance } from 'fastify'
import type { Notifier } from '../notifier.ts'
import type { DeployedCheck } from '../store/checks.ts'
import { UnknownReference } from '../store/incidents.ts'
import type { QueuedCheck } from '../store/jobs.ts'
import type { IncidentSeverity, IncidentStatus } from '../store/model.ts'
import type { HubStore } from '../store/store.ts'
import { HttpError } from './errors.ts'
import { cursorOrThrow } from './public-routes.ts'
import type { RouteTable } from './route-table.ts'
import {
  accountHeader,
  checkDefinitionSchema,
  checkResultPageSchema,
  errorSchema,
  idParam,
  incidentSchema,
  newIncidentBody,
  pageQuery,
  serviceSchema,
} from './schemas.ts'

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema }
const name = { type: 'string', minLength: 1, maxLength: 255 } as const
const apiKeySchema = {
  type: 'object',
  required: ['id', 'name', 'accountId', 'prefix', 'created_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    accountId: { type: 'string' },
    prefix: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    key: { type: 'string', description: 'the key itself: shown in this response only' },
  },
} as const
const accountSchema = {
  type: 'object',
  required: ['id', 'name', 'created_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const
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

export interface ManagementRouteDeps {
  store: HubStore
  notifier: Notifier
  locationTimeoutMs: number
  defaultLocation: string
}

function unknownReference(error: unknown): never {
  if (error instanceof UnknownReference) throw new HttpError(400, `body/${error.field}: ${error.message}`)
  throw error
}

export function registerManagementRoutes(
  app: FastifyInstance,
  table: RouteTable,
  deps: ManagementRouteDeps,
): void {
  const { store } = deps

  table.add(app, {
    method: 'POST',
    url: '/v1/accounts',
    schema: {
      summary: 'Creates an account; the calling API key is granted it (select it with x-service-account)',
      body: { type: 'object', required: ['name'], additionalProperties: false, properties: { name } },
      response: { 201: accountSchema, ...errors },
    },
    handler: async (request, reply) => {
      const body = request.body as { name: string }
      return reply.code(201).send(await store.createAccount(body.name, request.keyId))
    },
  })

  table.add(app, {
    method: 'POST',
    url: '/v1/api-keys',
    schema: {
      summary: 'Creates an API key in the selected account; the key is in this response only',
      headers: accountHeader,
      body: { type: 'object', required: ['name'], additionalProperties: false, properties: { name } },
      response: { 201: apiKeySchema, ...errors },
    },
    handler: async (request, reply) => {
      const body = request.body as { name: string }
      const created = await store.createApiKey(request.accountId, body.name)
      return reply.code(201).send({ ...created.info, key: created.key })
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/api-keys',
    schema: { headers: accountHeader, response: { 200: { type: 'array', items: apiKeySchema }, ...errors } },
    handler: async (request) => store.listApiKeys(request.accountId),
  })

  table.add(app, {
    method: 'DELETE',
    url: '/v1/api-keys/:keyId',
    schema: {
      params: idParam('keyId'),
      headers: accountHeader,
      response: { 204: { type: 'null' }, ...errors },
    },
    handler: async (request, reply) => {
      const { keyId } = request.params as { keyId: string }
      if (!(await store.revokeApiKey(request.accountId, keyId))) {
        throw new HttpError(404, `API key ${JSON.stringify(keyId)} not found`)
      }
      return reply.code(204).send()
    },
  })

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
      headers: accountHeader,
      body: newIncidentBody,
      response: { 201: incidentSchema, ...errors },
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
      if (body.status !== undefined && body.description === undefined) {
        throw new HttpError(
          400,
          'body/description is required when body/status is given (it is the first update)',
        )
      }
      const incident = await store
        .createIncident(request.accountId, {
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
        })
        .catch(unknownReference)
      return reply.code(201).send(incident)
    },
  })

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

  const deployedCheckSchema = {
    ...checkDefinitionSchema,
    required: [...checkDefinitionSchema.required, 'frequencySeconds'],
    properties: {
      ...checkDefinitionSchema.properties,
      frequencySeconds: { type: 'integer', minimum: 1, maximum: 604_800 },
      privateLocations: {
        type: 'array',
        maxItems: 50,
        items: { type: 'string', minLength: 1, maxLength: 100 },
      },
      activated: { type: 'boolean' },
    },
  } as const

  table.add(app, {
    method: 'PUT',
    url: '/v1/checks',
    schema: {
      summary:
        'Deploys monitors as code: the account’s checks become exactly these (by logicalId); each runs at its privateLocations every frequencySeconds',
      headers: accountHeader,
      body: {
        type: 'object',
        required: ['checks'],
        additionalProperties: false,
        properties: { checks: { type: 'array', maxItems: 5000, items: deployedCheckSchema } },
      },
      response: {
        200: {
          type: 'object',
          required: ['created', 'updated', 'deleted'],
          properties: {
            created: { type: 'integer' },
            updated: { type: 'integer' },
            deleted: { type: 'integer' },
          },
        },
        ...errors,
      },
    },
    handler: async (request) => {
      const { checks } = request.body as { checks: DeployedCheck[] }
      const ids = new Set<string>()
      for (const [i, check] of checks.entries()) {
        if (ids.has(check.logicalId)) {
          throw new HttpError(
            400,
            `body/checks/${i}/logicalId ${JSON.stringify(check.logicalId)} appears twice`,
          )
        }
        ids.add(check.logicalId)
      }
      const outcome = await store.deployChecks(request.accountId, checks)
      deps.notifier.notify()
      return outcome
    },
  })

  table.add(app, {
    method: 'GET',
    url: '/v1/checks',
    schema: {
      headers: accountHeader,
      response: { 200: { type: 'array', items: { type: 'object', additionalProperties: true } }, ...errors },
    },
    handler: async (request) => store.listChecks(request.accountId),
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
