// Request validation: query strings, path parameters and headers arrive as text, so their values are
// coerced to the schema's types (`limit=20` is the integer 20). Bodies are JSON and already typed:
// there a number where a string belongs, or a scalar where an array belongs, is an error naming the
// field, never silently converted.

import { AjvCompiler } from '@fastify/ajv-compiler'
import type { FastifyServerOptions } from 'fastify'

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
type BuildValidator = NonNullable<CompilersFactory['buildValidator']>

// The shapes fastify really calls these with (the package's own types describe an older one).
interface RouteDefinition {
  schema: unknown
  method: string
  url: string
  httpPart?: string
}
type RouteCompiler = (route: RouteDefinition) => (data: unknown) => boolean
type CompilerPool = (
  externalSchemas: unknown,
  options: { customOptions?: Record<string, unknown> } & Record<string, unknown>,
) => RouteCompiler

export function strictBodyValidators(): BuildValidator {
  const pool = AjvCompiler() as unknown as CompilerPool
  const build: CompilerPool = (externalSchemas, options) => {
    const coercing = pool(externalSchemas, options)
    const strict = pool(externalSchemas, {
      ...options,
      customOptions: { ...options.customOptions, coerceTypes: false },
    })
    return (route) => (route.httpPart === 'body' ? strict(route) : coercing(route))
  }
  return build as unknown as BuildValidator
}
