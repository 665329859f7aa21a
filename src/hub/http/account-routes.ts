// Accounts and API keys: a key creates accounts it is then granted, and keys in the selected account.

import type { FastifyInstance } from 'fastify'
import { HttpError } from './errors.ts'
import type { ManagementRouteDeps } from './management-routes.ts'
import type { RouteTable } from './route-table.ts'
import { accountHeader, errorSchema, idParam } from './schemas.ts'

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

export function registerAccountRoutes(
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
}
