// Every error leaves the hub as {statusCode, error, message}; validation messages name the field,
// the value received and the rule.

import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { DatabaseUnavailableError, UnstorableValueError } from '../db/errors.ts'
import { NO_NUL_PATTERN } from './no-nul.ts'

/** Seconds a client is asked to wait before retrying while the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 2

export class HttpError extends Error {
  readonly statusCode: number
  constructor(statusCode: number, message: string) {
    super(message)
    this.statusCode = statusCode
  }
}

export function sendError(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply.code(statusCode).send({ statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message })
}

interface ValidationIssue {
  keyword?: string
  instancePath: string
  message?: string
  params?: Record<string, unknown>
  data?: unknown
}

function describeValidation(context: string | undefined, issues: ValidationIssue[]): string {
  return issues
    .map((issue) => {
      const missing =
        typeof issue.params?.missingProperty === 'string' ? `/${issue.params.missingProperty}` : ''
      const extra =
        typeof issue.params?.additionalProperty === 'string' ? `/${issue.params.additionalProperty}` : ''
      const field = `${context ?? 'request'}${issue.instancePath}${missing}${extra}`
      if (issue.keyword === 'pattern' && issue.params?.pattern === NO_NUL_PATTERN) {
        const text = typeof issue.data === 'string' ? issue.data : ''
        return `${field} must not contain the NUL character U+0000 (got ${JSON.stringify(text.slice(0, 80))}${text.length > 80 ? ' (cut)' : ''})`
      }
      const allowed = Array.isArray(issue.params?.allowedValues)
        ? `: one of ${(issue.params.allowedValues as unknown[]).join(', ')}`
        : ''
      const got =
        missing === '' && issue.data !== undefined && typeof issue.data !== 'object'
          ? ` (got ${JSON.stringify(issue.data)})`
          : ''
      return `${field} ${issue.message ?? 'is not valid'}${allowed}${got}`
    })
    .join('; ')
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { validationContext?: string }, request, reply) => {
    if (error.validation) {
      return sendError(
        reply,
        400,
        describeValidation(error.validationContext, error.validation as ValidationIssue[]),
      )
    }
    if (error instanceof DatabaseUnavailableError) {
      // One line, no stack: an outage answers every request this way and the cause is the same.
      request.log.warn({ url: request.url, cause: String(error.cause) }, error.message)
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
      return sendError(reply, 503, error.message)
    }
    // A value PostgreSQL cannot hold (NUL in text): the caller's input, never a 500.
    if (error instanceof UnstorableValueError) return sendError(reply, 400, error.message)
    const status = error.statusCode ?? 500
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed')
      return sendError(reply, status, 'internal error; see the hub log')
    }
    return sendError(reply, status, error.message)
  })
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, `no route ${request.method} ${request.url.split('?')[0]}`),
  )
}
