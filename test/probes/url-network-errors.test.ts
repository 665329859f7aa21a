import { describe, expect, it } from 'vitest'
import {
  CodedError,
  classifyNetworkError,
  PhaseError,
  timeoutError,
} from '../../src/probes/network-errors.ts'

const errno = (code: string, message = code) => Object.assign(new Error(message), { code })

describe('classifyNetworkError', () => {
  it.each([
    ['ECONNREFUSED', 'connect', 'CONNECTION_REFUSED', true],
    ['ECONNRESET', 'request', 'CONNECTION_RESET', true],
    ['ECONNRESET', 'response', 'CONNECTION_RESET', false],
    ['EHOSTUNREACH', 'connect', 'HOST_UNREACHABLE', true],
    ['ENETUNREACH', 'connect', 'NETWORK_UNREACHABLE', true],
    ['ENOTFOUND', 'dns', 'DNS_NXDOMAIN', true],
    ['EAI_AGAIN', 'dns', 'DNS_FAILURE', true],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls', 'TLS_ERROR', false],
    ['CERT_HAS_EXPIRED', 'tls', 'TLS_ERROR', false],
    ['HPE_INVALID_CONSTANT', 'response', 'PROTOCOL_ERROR', false],
    ['UND_ERR_INVALID_ARG', 'request', 'INVALID_REQUEST', false],
  ] as const)('%s during %s is %s', (code, phase, expected, connectionLevel) => {
    const classified = classifyNetworkError(new PhaseError(phase, errno(code)), phase, '127.0.0.1:80')
    expect(classified).toMatchObject({ code: expected, phase, connectionLevel })
    expect(classified.message).toContain('127.0.0.1:80')
  })

  it('passes a coded error through', () => {
    const classified = classifyNetworkError(
      new PhaseError('response', new CodedError('TOO_MANY_REDIRECTS', 'x')),
      'response',
      't',
    )
    expect(classified).toEqual({
      code: 'TOO_MANY_REDIRECTS',
      phase: 'response',
      connectionLevel: false,
      message: 'x',
    })
  })

  it('does not disguise a bug as a network failure', () => {
    const classified = classifyNetworkError(
      new PhaseError('dns', new TypeError('x is not a function')),
      'dns',
      't',
    )
    expect(classified).toMatchObject({
      code: 'INTERNAL_ERROR',
      message: 'internal error in the probe: x is not a function',
    })
  })

  it('a timeout before the server answered is connection level; one while reading is not', () => {
    expect(timeoutError('connect', 't', 10).connectionLevel).toBe(true)
    expect(timeoutError('response', 't', 10).connectionLevel).toBe(false)
    expect(timeoutError('tls', 'h:443', 5000.4, 5000).message).toBe(
      'timed out after 5000 ms (maxResponseTime 5000 ms) during TLS handshake (h:443)',
    )
  })
})
