// Monitors as code deployed to the hub (`outpost deploy`), scheduled at their private locations.

import type { FastifyInstance } from 'fastify'
import type { DeployedCheck } from '../store/checks.ts'
import { HttpError } from './errors.ts'
import type { ManagementRouteDeps } from './management-routes.ts'
import type { RouteTable } from './route-table.ts'
import { accountHeader, checkDefinitionSchema, errorSchema } from './schemas.ts'

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema }

export function registerCheckRoutes(
  app: FastifyInstance,
  table: RouteTable,
  deps: ManagementRouteDeps,
): void {
  const { store } = deps

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
}
