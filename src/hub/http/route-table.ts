// Routes are declared through this table so /openapi.json is built from the very schemas fastify
// validates and serialises with.

import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'

export interface RouteSchema {
  summary?: string
  params?: object
  querystring?: object
  headers?: object
  body?: object
  response: Record<number, object>
}

export interface RouteSpec {
  method: HTTPMethods
  url: string
  schema: RouteSchema
  /** False for the few routes that need no API key. */
  auth?: boolean
  bodyContentType?: string
  // biome-ignore lint/suspicious/noConfusingVoidType: fastify handlers may return nothing after reply.send
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown | void>
}

export interface RouteTable {
  add(app: FastifyInstance, spec: RouteSpec): void
  specs(): readonly RouteSpec[]
}

export function createRouteTable(): RouteTable {
  const specs: RouteSpec[] = []
  return {
    add(app, spec) {
      specs.push(spec)
      app.route({
        method: spec.method,
        url: spec.url,
        schema: spec.schema,
        config: { auth: spec.auth !== false },
        handler: spec.handler,
      })
    },
    specs: () => specs,
  }
}
