// Authorization: Bearer <key> on every route that asks for it; x-service-account picks one of the
// accounts the key belongs to (its own when absent). 401: no or unknown key; 403: an account the key
// does not belong to.

import type { FastifyInstance } from 'fastify'
import type { HubStore } from '../store/store.ts'
import { sendError } from './errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    accountId: string
    keyId: string
  }
  interface FastifyContextConfig {
    auth?: boolean
  }
}

export function installAuth(app: FastifyInstance, store: HubStore): void {
  app.decorateRequest('accountId', '')
  app.decorateRequest('keyId', '')
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.auth === false || request.routeOptions.url === undefined) return
    const header = request.headers.authorization
    const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (match === null) {
      return sendError(reply, 401, 'missing API key: send the header "Authorization: Bearer <API key>"')
    }
    const key = await store.authenticate(match[1] as string)
    if (key === null) return sendError(reply, 401, 'the API key is not valid (unknown or revoked)')
    const requested = request.headers['x-service-account']
    const account = typeof requested === 'string' && requested !== '' ? requested : key.accountId
    if (!key.accountIds.includes(account)) {
      return sendError(
        reply,
        403,
        `x-service-account ${JSON.stringify(account)}: this API key does not belong to that account`,
      )
    }
    request.accountId = account
    request.keyId = key.keyId
  })
}
