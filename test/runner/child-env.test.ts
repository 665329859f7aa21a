import { describe, expect, it } from 'vitest'
import { buildChildEnv, checkSecretValues } from '../../src/runner/child-env.ts'

describe('buildChildEnv', () => {
  const agentEnv = {
    PATH: '/usr/bin',
    HOME: '/root',
    HTTPS_PROXY: 'http://127.0.0.1:3128',
    API_KEY: 'agent-key',
    SERVICE_SECRET_AGENT: 'agent-secret',
    CI: 'true',
  }

  it('passes only the base variables, the agent SERVICE_SECRET_*, the check variables and SERVICE=1; CI only in a test session', () => {
    const env = buildChildEnv({
      agentEnv,
      checkEnv: [{ key: 'TARGET', value: 'x' }],
      testSession: false,
      runnerEnv: { OUTPOST_RUN_MARKER: 'm' },
    })
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/root',
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      SERVICE_SECRET_AGENT: 'agent-secret',
      TARGET: 'x',
      SERVICE: '1',
      OUTPOST_RUN_MARKER: 'm',
    })
    expect(buildChildEnv({ agentEnv, checkEnv: [], testSession: true, runnerEnv: {} }).CI).toBe('true')
  })

  it('does not let a check variable set CI outside a test session, nor override the runner plumbing', () => {
    const env = buildChildEnv({
      agentEnv,
      checkEnv: [
        { key: 'CI', value: 'true' },
        { key: 'NODE_OPTIONS', value: '--inspect' },
        { key: 'SERVICE', value: '0' },
      ],
      testSession: false,
      runnerEnv: { NODE_OPTIONS: '--max-old-space-size=512' },
    })
    expect([env.CI, env.NODE_OPTIONS, env.SERVICE]).toEqual([undefined, '--max-old-space-size=512', '1'])
  })

  it('treats marked and SERVICE_SECRET_* check variables as secrets', () => {
    expect(
      checkSecretValues([
        { key: 'A', value: 'plain' },
        { key: 'B', value: 'marked', secret: true },
        { key: 'SERVICE_SECRET_C', value: 'named' },
      ]),
    ).toEqual(['marked', 'named'])
  })
})
