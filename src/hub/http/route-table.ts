// Routes are declared through this table so /openapi.json is built from the very schemas fastify
// validates and serialises with.

import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import { HttpError } from './errors.ts'
import { refuseNulInRequests } from './no-nul.ts'

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

/** Query parameters declared as integers: their raw text must be plain decimal digits. */
function integerQueryFields(schema: RouteSchema): Array<{ name: string; rule: string }> {
  const properties = (
    schema.querystring as {
      properties?: Record<string, { type?: unknown; minimum?: number; maximum?: number }>
    }
  )?.properties
  return Object.entries(properties ?? {})
    .filter(([, p]) => p.type === 'integer')
    .map(([name, p]) => ({ name, rule: `a whole number from ${p.minimum} to ${p.maximum}` }))
}

export function createRouteTable(): RouteTable {
  const specs: RouteSpec[] = []
  return {
    add(app, spec) {
      specs.push(spec)
      const integers = integerQueryFields(spec.schema)
      app.route({
        method: spec.method,
        url: spec.url,
        schema: refuseNulInRequests(spec.schema),
        config: { auth: spec.auth !== false },
        // The validator would coerce "0x10", " 5" or "1e1" to numbers; the API takes digits only.
        ...(integers.length > 0
          ? {
              preValidation: async (request: FastifyRequest) => {
                const query = request.query as Record<string, unknown>
                for (const { name, rule } of integers) {
                  const raw = query[name]
                  if (raw !== undefined && (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw))) {
                    throw new HttpError(
                      400,
                      `querystring/${name} must be ${rule} (got ${JSON.stringify(raw)})`,
                    )
                  }
                }
              },
            }
          : {}),
        handler: spec.handler,
      })
    },
    specs: () => specs,
  }
}
