import { describe, expect, it } from 'vitest'
import {
  authorizationSecrets,
  type SecretWarning,
  scrubbableValues,
  secretsFromCheckVariables,
  secretsFromEnv,
} from '../../src/secrets/named-secrets.ts'
import { createScrubber, SCRUBBED } from '../../src/secrets/scrubber.ts'

describe('secretsFromEnv', () => {
  it('takes SERVICE_SECRET_* and API_KEY and nothing else', () => {
    const env = {
      SERVICE_SECRET_DB: 'db-password',
      SERVICE_SECRET_TOKEN: 'tok-123456',
      API_KEY: 'ak_live_0123',
      SERVICE_API_URL: 'http://127.0.0.1:8080',
      PATH: '/usr/bin',
      SERVICE_SECRET_UNSET: undefined,
    }
    expect(secretsFromEnv(env)).toEqual([
      { name: 'SERVICE_SECRET_DB', value: 'db-password' },
      { name: 'SERVICE_SECRET_TOKEN', value: 'tok-123456' },
      { name: 'API_KEY', value: 'ak_live_0123' },
    ])
  })
})

describe('secretsFromCheckVariables', () => {
  it('takes SERVICE_SECRET_* names and variables marked secret', () => {
    const secrets = secretsFromCheckVariables([
      { key: 'SERVICE_SECRET_PW', value: 'pw-value' },
      { key: 'TOKEN', value: 'marked-secret', secret: true },
      { key: 'BASE_URL', value: 'http://127.0.0.1' },
    ])
    expect(secrets.map((s) => s.name)).toEqual(['SERVICE_SECRET_PW', 'TOKEN'])
  })
})

describe('scrubbableValues', () => {
  it('drops empty values silently and warns about short ones by name, never by value', () => {
    const warnings: SecretWarning[] = []
    const values = scrubbableValues(
      [
        { name: 'SERVICE_SECRET_EMPTY', value: '' },
        { name: 'SERVICE_SECRET_SHORT', value: 'q7z' },
        { name: 'SERVICE_SECRET_OK', value: 'long-enough' },
      ],
      (warning) => warnings.push(warning),
    )
    expect(values).toEqual(['long-enough'])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.name).toBe('SERVICE_SECRET_SHORT')
    expect(warnings[0]!.message).toContain('SERVICE_SECRET_SHORT')
    expect(warnings[0]!.message).toContain('shorter than 4 characters')
    expect(warnings[0]!.message).not.toContain('q7z')
  })

  it('warns about a value that is only whitespace', () => {
    const warnings: SecretWarning[] = []
    expect(
      scrubbableValues([{ name: 'SERVICE_SECRET_BLANK', value: '    ' }], (w) => warnings.push(w)),
    ).toEqual([])
    expect(warnings[0]!.message).toBe('secret SERVICE_SECRET_BLANK is not scrubbed: it is only whitespace')
  })

  it('warns about a value the marker contains', () => {
    const warnings: SecretWarning[] = []
    expect(
      scrubbableValues([{ name: 'SERVICE_SECRET_STARS', value: '*****' }], (w) => warnings.push(w)),
    ).toEqual([])
    expect(warnings[0]!.message).toContain('marker')
  })
})

describe('authorizationSecrets', () => {
  it('covers a bearer token alone as well as the whole header value', () => {
    const secrets = authorizationSecrets('Bearer eyJhbGciOi.payload.sig')
    const scrubber = createScrubber(secrets.map((s) => s.value))
    expect(scrubber.text('token=eyJhbGciOi.payload.sig')).toBe(`token=${SCRUBBED}`)
    expect(scrubber.text('Authorization: Bearer eyJhbGciOi.payload.sig')).toBe(`Authorization: ${SCRUBBED}`)
  })

  it('covers the decoded user:password and password of Basic credentials', () => {
    const secrets = authorizationSecrets(`Basic ${btoa('svc-user:correct horse')}`)
    expect(secrets.map((s) => s.value)).toContain('svc-user:correct horse')
    expect(secrets.map((s) => s.value)).toContain('correct horse')
    const scrubber = createScrubber(secrets.map((s) => s.value))
    expect(scrubber.text('login failed for password=correct+horse')).toBe(
      `login failed for password=${SCRUBBED}`,
    )
    expect(secrets.every((s) => !s.name.includes('horse'))).toBe(true)
  })
})
