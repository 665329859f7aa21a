// The hub's fastify app: error shape, auth, the three route groups and /openapi.json. Listening,
// the sweep timer and the store's lifetime belong to hub.ts.

import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify'
import { AGENT_VERSION } from '../../version.ts'
import type { Notifier } from '../notifier.ts'
import type { HubStore } from '../store/store.ts'
import { registerAgentRoutes, registerArtifactDownload } from './agent-routes.ts'
import { installAuth } from './auth.ts'
import { installErrorHandlers } from './errors.ts'
import { registerManagementRoutes } from './management-routes.ts'
import { openApiDocument } from './openapi.ts'
import { registerPublicRoutes } from './public-routes.ts'
import { createRouteTable } from './route-table.ts'
import { errorSchema } from './schemas.ts'
import { strictBodyValidators } from './validators.ts'

export interface HubAppOptions {
  store: HubStore
  notifier: Notifier
  dataDir: string
  maxArtifactBytes: number
  locationTimeoutMs: number
  now: () => number
  logger?: FastifyServerOptions['loggerInstance']
}

export async function buildHubApp(options: HubAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // verbose: validation errors carry the offending value, so messages can show it.
    // removeAdditional off: an unknown field is an error, not silently dropped.
    ajv: { customOptions: { verbose: true, allErrors: false, removeAdditional: false } },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 5 * 1024 * 1024,
    // Stopping must not wait on keep-alive sockets (an agent's, a browser's): long-polls are answered
    // first (notifier.close), and agents retry what a closed connection cut off (results are idempotent).
    forceCloseConnections: true,
    schemaController: { compilersFactory: { buildValidator: strictBodyValidators() } },
  }) as unknown as FastifyInstance
  installErrorHandlers(app)
  installAuth(app, options.store)
  const table = createRouteTable()
  registerPublicRoutes(app, table, options)
  registerManagementRoutes(app, table, { ...options, defaultLocation: 'private' })
  registerAgentRoutes(app, table, options)
  registerArtifactDownload(app, table, options.store)
  table.add(app, {
    method: 'GET',
    url: '/-/health',
    auth: false,
    schema: { response: { 200: { type: 'object', properties: { status: { type: 'string' } } } } },
    handler: async () => ({ status: 'ok' }),
  })
  // Liveness stays /-/health (a database outage must not get the hub restarted); readiness says
  // whether requests can be served, so a load balancer sends them to a replica that can.
  table.add(app, {
    method: 'GET',
    url: '/-/readiness',
    auth: false,
    schema: {
      summary:
        'Readiness: 200 when the database can take requests (SQLite: its write lock can be taken), 503 naming the cause while it cannot',
      response: {
        200: { type: 'object', properties: { status: { type: 'string' } } },
        503: errorSchema,
      },
    },
    handler: async () => {
      await options.store.ping()
      return { status: 'ready' }
    },
  })
  const document = openApiDocument(table.specs(), AGENT_VERSION)
  app.get('/openapi.json', { config: { auth: false } }, async () => document)
  return app
}
