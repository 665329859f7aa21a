// The Idempotency-Key request header (the common convention; IETF draft "The Idempotency-Key HTTP
// Header Field") on writes whose ids the hub chooses. Validation here, storage in
// store/idempotency.ts. Only successful answers are recorded: a 4xx leaves the key free, so a
// corrected retry with the same key is processed.

import type { FastifyReply, FastifyRequest } from 'fastify'
import { hashRequest, type IdempotentOutcome, type IdempotentRequest } from '../store/idempotency.ts'
import { HttpError } from './errors.ts'

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/

export const idempotencyKeyProperty = {
  type: 'string',
  description:
    'optional; 1 to 255 printable ASCII characters (0x20-0x7E), chosen by the client per write. A repeat ' +
    'with the same key and request within 24 hours is not written again: it gets the first answer back ' +
    'with the header Idempotent-Replayed: true (422 if the key was used for a different request). ' +
    'Keys are per account and route; failed requests (4xx) do not use the key up.',
} as const

/** The route's header schema with Idempotency-Key added (documented in /openapi.json). */
export function withIdempotencyKey<H extends { properties: object }>(headers: H) {
  return {
    ...headers,
    properties: { ...headers.properties, [IDEMPOTENCY_KEY_HEADER]: idempotencyKeyProperty },
  }
}

/** The request's key with what identifies the request, or undefined when it sent none. */
export function idempotentRequest(request: FastifyRequest, route: string): IdempotentRequest | undefined {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER]
  if (raw === undefined) return undefined
  const key = Array.isArray(raw) ? raw.join(', ') : raw
  if (!KEY_PATTERN.test(key)) {
    const shown =
      key.length > 80
        ? `${JSON.stringify(key.slice(0, 80))} (cut, ${key.length} characters)`
        : JSON.stringify(key)
    throw new HttpError(
      400,
      `headers/idempotency-key ${shown} is not allowed: use 1 to 255 printable ASCII characters (0x20-0x7E)`,
    )
  }
  return {
    accountId: request.accountId,
    route,
    key,
    requestHash: hashRequest(route, request.params ?? {}, request.body ?? null),
  }
}

/**
 * Sends a written or replayed answer; a mismatch is 422. 'refused' is the caller's to answer (it
 * knows which 4xx), so it is returned as false.
 */
export function sendIdempotent<T>(reply: FastifyReply, outcome: IdempotentOutcome<T>): FastifyReply | false {
  switch (outcome.kind) {
    case 'written':
      return reply
        .code(outcome.answer.status)
        .type('application/json; charset=utf-8')
        .send(outcome.answer.body)
    case 'replayed':
      return reply
        .code(outcome.answer.status)
        .header(REPLAYED_HEADER, 'true')
        .type('application/json; charset=utf-8')
        .send(outcome.answer.body)
    case 'mismatch':
      throw new HttpError(
        422,
        'headers/idempotency-key was already used for a different request (another body or path) within ' +
          'the last 24 hours: use a new key for a new request',
      )
    case 'refused':
      return false
  }
}

/** JSON text of a value as the route's response schema for the reply's status code serialises it. */
export function serialiserOf(reply: FastifyReply): (value: unknown) => string {
  return (value) => {
    const out = reply.serialize(value)
    return typeof out === 'string' ? out : new TextDecoder().decode(out)
  }
}
