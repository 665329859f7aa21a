// The OpenAPI 3.1 document, assembled from the route table (JSON Schema 2020-12 is close enough to
// the draft-07 schemas fastify uses that they are embedded as they are).

import { STATUS_CODES } from 'node:http'
import type { RouteSpec } from './route-table.ts'

type Json = Record<string, unknown>

function parameters(where: 'path' | 'query' | 'header', schema: object | undefined): Json[] {
  const s = schema as { properties?: Record<string, Json>; required?: string[] } | undefined
  return Object.entries(s?.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (s?.required ?? []).includes(name),
    schema: property,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  }))
}

function operation(spec: RouteSpec): Json {
  const { schema } = spec
  return {
    ...(schema.summary ? { summary: schema.summary } : {}),
    parameters: [
      ...parameters('path', schema.params),
      ...parameters('query', schema.querystring),
      ...parameters('header', schema.headers),
    ],
    ...(schema.body
      ? {
          requestBody: {
            required: true,
            content: { [spec.bodyContentType ?? 'application/json']: { schema: schema.body } },
          },
        }
      : {}),
    responses: Object.fromEntries(
      Object.entries(schema.response).map(([code, body]) => [
        code,
        {
          description: STATUS_CODES[Number(code)] ?? code,
          content: { 'application/json': { schema: body } },
        },
      ]),
    ),
    ...(spec.auth === false ? { security: [] } : {}),
  }
}

export function openApiDocument(specs: readonly RouteSpec[], version: string): Json {
  const paths: Record<string, Json> = {}
  for (const spec of specs) {
    const path = spec.url.replace(/:(\w+)/g, '{$1}')
    paths[path] = { ...(paths[path] ?? {}), [String(spec.method).toLowerCase()]: operation(spec) }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Outpost hub API', version },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
      },
    },
    security: [{ bearer: [] }],
    paths,
  }
}
