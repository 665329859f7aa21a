// HTTP to the hub: bearer key, account header, proxies (HTTPS_PROXY/HTTP_PROXY/NO_PROXY) and extra
// CA certificates, and one classification of failures (errors.ts). The API key never appears in a
// message.

import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import { Agent, type Dispatcher, EnvHttpProxyAgent, fetch } from 'undici'
import { HubRefusedError, HubRejectedKeyError, HubUnavailableError } from './errors.ts'

export interface HubClientOptions {
  baseUrl: string
  apiKey: string
  accountId?: string
  httpsProxy?: string
  httpProxy?: string
  noProxy?: string
  /** PEM file added to the trusted roots (NODE_EXTRA_CA_CERTS). */
  extraCaCerts?: string
}

export interface HubResponse {
  status: number
  body: unknown
}

export interface HubClient {
  readonly baseUrl: string
  /** JSON in, JSON out. Throws HubUnavailableError, HubRejectedKeyError or HubRefusedError. */
  json(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<HubResponse>
  /** Streams a body (an artifact file) with PUT. */
  upload(path: string, body: AsyncIterable<Uint8Array>, signal?: AbortSignal): Promise<HubResponse>
  close(): Promise<void>
}

function dispatcherFor(options: HubClientOptions): Dispatcher {
  const ca = options.extraCaCerts
    ? [...rootCertificates, readFileSync(options.extraCaCerts, 'utf8')]
    : undefined
  const tls = ca ? { ca } : {}
  if (options.httpsProxy || options.httpProxy) {
    return new EnvHttpProxyAgent({
      httpProxy: options.httpProxy,
      httpsProxy: options.httpsProxy ?? options.httpProxy,
      noProxy: options.noProxy ?? '',
      requestTls: tls,
      proxyTls: tls,
    })
  }
  return new Agent({ connect: tls })
}

function errorMessage(body: unknown, fallback: string): string {
  if (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { message?: unknown }).message === 'string'
  ) {
    return (body as { message: string }).message
  }
  return fallback
}

export function createHubClient(options: HubClientOptions): HubClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const dispatcher = dispatcherFor(options)
  const headers = (extra: Record<string, string>): Record<string, string> => ({
    authorization: `Bearer ${options.apiKey}`,
    ...(options.accountId ? { 'x-service-account': options.accountId } : {}),
    ...extra,
  })

  const send = async (
    method: string,
    path: string,
    init: { body?: string | AsyncIterable<Uint8Array>; contentType?: string },
    signal?: AbortSignal,
  ): Promise<HubResponse> => {
    let response: Awaited<ReturnType<typeof fetch>>
    let text: string
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: headers(init.contentType ? { 'content-type': init.contentType } : {}),
        body: init.body,
        dispatcher,
        signal,
        ...(typeof init.body === 'object' ? { duplex: 'half' as const } : {}),
      })
      text = await response.text()
    } catch (error) {
      if (signal?.aborted) throw error
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      throw new HubUnavailableError(
        `cannot reach the hub at ${baseUrl} (${cause?.code ?? cause?.message ?? (error as Error).message})`,
        { cause: error },
      )
    }
    let body: unknown
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      body = text
    }
    const status = response.status
    if (status === 401 || status === 403)
      throw new HubRejectedKeyError(status, baseUrl, errorMessage(body, 'refused'))
    if (status >= 500 || status === 408 || status === 429) {
      throw new HubUnavailableError(
        `the hub at ${baseUrl} answered ${status} to ${method} ${path}: ${errorMessage(body, text.slice(0, 200))}`,
      )
    }
    if (status >= 400)
      throw new HubRefusedError(
        status,
        `${method} ${path}: ${status} ${errorMessage(body, text.slice(0, 200))}`,
      )
    return { status, body }
  }

  return {
    baseUrl,
    json: (method, path, body, signal) =>
      send(
        method,
        path,
        body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' },
        signal,
      ),
    upload: (path, body, signal) =>
      send('PUT', path, { body, contentType: 'application/octet-stream' }, signal),
    close: () => dispatcher.close(),
  }
}
