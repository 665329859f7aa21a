// What makes the public API real, in four groups: accounts and keys; services, status pages,
// incidents and subscribers; check sessions, results and locations; deployed checks.

import type { FastifyInstance } from 'fastify'
import type { Notifier } from '../notifier.ts'
import type { HubStore } from '../store/store.ts'
import { registerAccountRoutes } from './account-routes.ts'
import { registerCheckRoutes } from './check-routes.ts'
import type { RouteTable } from './route-table.ts'
import { registerSessionRoutes } from './session-routes.ts'
import { registerStatusPageRoutes } from './status-page-routes.ts'

export interface ManagementRouteDeps {
  store: HubStore
  notifier: Notifier
  locationTimeoutMs: number
  defaultLocation: string
}

export function registerManagementRoutes(
  app: FastifyInstance,
  table: RouteTable,
  deps: ManagementRouteDeps,
): void {
  registerAccountRoutes(app, table, deps)
  registerStatusPageRoutes(app, table, deps)
  registerSessionRoutes(app, table, deps)
  registerCheckRoutes(app, table, deps)
}
