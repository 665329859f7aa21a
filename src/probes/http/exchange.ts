// One HTTP/1.1 request over a connection we opened and timed ourselves. undici speaks HTTP on it;
// its connector only hands over our socket, once, so nothing is pooled, retried or reused, and
// no header is added beyond the protocol's own (host, connection: close).

import type { Socket } from 'node:net'
import { Client, type Dispatcher } from 'undici'
import { PhaseError } from '../network-errors.ts'
import type { StopSignal } from '../run-deadline.ts'

export interface ExchangeRequest {
  /** Origin the Host header is derived from, e.g. https://example.test:8443 */
  origin: string
  /** Path and query, e.g. /health?full=1 */
  path: string
  method: 'GET' | 'HEAD' | Dispatcher.HttpMethod
  headers: string[]
  body?: string | Uint8Array
  /** Bytes of body kept; the rest is not read (the connection is closed instead). */
  maxBodyBytes: number
}

export interface ExchangeResponse {
  statusCode: number
  statusMessage: string
  headers: Record<string, string | string[]>
  body: Buffer
  /** The body was longer than maxBodyBytes and reading stopped there. */
  truncated: boolean
  /** From the request being written to the first byte of the response. */
  firstByteMs: number
  /** From the first byte to the end of the body (or to the cap). */
  downloadMs: number
}

const BODY_CAP_REACHED = 'outpost: body cap reached'

export function exchange(
  socket: Socket,
  request: ExchangeRequest,
  signal: StopSignal,
): Promise<ExchangeResponse> {
  return new Promise((resolve, reject) => {
    let handedOver = false
    const client = new Client(request.origin, {
      connect: (_options, callback) => {
        // undici ignores a connector that answers synchronously (its resume loop is not re-entrant).
        if (handedOver) {
          queueMicrotask(() => callback(new Error('connection already used'), null))
          return
        }
        handedOver = true
        queueMicrotask(() => callback(null, socket))
      },
      pipelining: 1,
      // The run's deadline bounds the request; undici's own timers would only add wake-ups.
      headersTimeout: 0,
      bodyTimeout: 0,
    })
    let requestStarted = 0
    let firstByteAt = 0
    let statusCode = 0
    let statusMessage = ''
    let headers: Record<string, string | string[]> = {}
    const chunks: Buffer[] = []
    let received = 0
    let truncated = false
    let settled = false

    const finish = (err: Error | undefined): void => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', onAbort)
      // close() after a complete response (undici already ends the connection: `connection: close`);
      // destroy() builds an error with a stack trace for nothing, a tenth of a probe's CPU.
      if (err || truncated) client.destroy().catch(() => {})
      else client.close().catch(() => {})
      if (err) {
        // undici never took the socket when the request was refused before dispatch: close it here.
        socket.destroy()
        reject(err)
        return
      }
      const end = performance.now()
      const first = firstByteAt || end
      resolve({
        statusCode,
        statusMessage,
        headers,
        body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received),
        truncated,
        firstByteMs: first - (requestStarted || first),
        downloadMs: end - first,
      })
    }
    const onAbort = (): void => {
      finish(new PhaseError(firstByteAt ? 'response' : 'request', signal.reason))
      socket.destroy()
    }
    if (signal.aborted) {
      onAbort()
      return
    }
    signal.addEventListener('abort', onAbort, { once: true })

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart() {
        requestStarted = performance.now()
      },
      onResponseStarted() {
        firstByteAt = performance.now()
      },
      onResponseStart(_controller, code, responseHeaders, message) {
        statusCode = code
        statusMessage = message ?? ''
        headers = responseHeaders as Record<string, string | string[]>
      },
      onResponseData(controller, chunk) {
        const room = request.maxBodyBytes - received
        if (chunk.length <= room) {
          chunks.push(chunk)
          received += chunk.length
          return
        }
        if (room > 0) {
          chunks.push(chunk.subarray(0, room))
          received += room
        }
        truncated = true
        controller.abort(new Error(BODY_CAP_REACHED))
      },
      onResponseEnd() {
        finish(undefined)
      },
      onResponseError(_controller, err) {
        if (truncated) finish(undefined)
        else finish(new PhaseError(firstByteAt ? 'response' : 'request', err))
      },
    }
    try {
      client.dispatch(
        {
          path: request.path,
          method: request.method,
          headers: request.headers,
          body: request.body ?? null,
          reset: true,
        },
        handler,
      )
    } catch (err) {
      finish(new PhaseError('request', err))
    }
  })
}
