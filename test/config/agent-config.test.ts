import { describe, expect, it } from 'vitest'
import { loadAgentConfig } from '../../src/config/agent-config.ts'
import { ConfigError } from '../../src/config/config-error.ts'

describe('loadAgentConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadAgentConfig({}, '/srv')
    expect(config).toMatchObject({
      jobConcurrency: 1,
      uptimeConcurrency: 100,
      healthPort: 8081,
      heartbeatPort: 8082,
      dataDir: '/srv/.outpost',
      flavor: 'full',
      externalObservability: true,
      logLevel: 'info',
      drainTimeoutSeconds: 120,
    })
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('reads every variable it knows', () => {
    const config = loadAgentConfig(
      {
        API_KEY: 'key-123456',
        SERVICE_API_URL: 'https://hub.example.test',
        SERVICE_ACCOUNT_ID: 'acc-1',
        JOB_CONCURRENCY: '4',
        UPTIME_CONCURRENCY: '1000',
        AGENT_HEALTH_PORT: '9000',
        AGENT_HEARTBEAT_PORT: '9001',
        AGENT_DATA_DIR: '/var/lib/outpost',
        AGENT_FLAVOR: 'uptime',
        EXTERNAL_OBSERVABILITY: 'off',
        SENTRY_DSN: 'https://public@sentry.example.test/1',
        LOG_LEVEL: 'debug',
        AGENT_DRAIN_TIMEOUT: '5',
        SERVICE_SECRET_DB: 'hunter22',
      },
      '/srv',
    )
    expect(config).toMatchObject({
      apiKey: 'key-123456',
      serviceApiUrl: 'https://hub.example.test',
      accountId: 'acc-1',
      jobConcurrency: 4,
      uptimeConcurrency: 1000,
      healthPort: 9000,
      heartbeatPort: 9001,
      dataDir: '/var/lib/outpost',
      flavor: 'uptime',
      externalObservability: false,
      logLevel: 'debug',
      drainTimeoutSeconds: 5,
      serviceSecrets: [{ name: 'SERVICE_SECRET_DB', value: 'hunter22' }],
    })
  })

  it.each([
    [
      'AGENT_HEALTH_PORT',
      'abc',
      'AGENT_HEALTH_PORT="abc" is not valid: expected a whole number from 0 to 65535',
    ],
    ['AGENT_HEALTH_PORT', '70000', 'AGENT_HEALTH_PORT="70000" is not valid'],
    ['AGENT_HEALTH_PORT', '80.5', 'AGENT_HEALTH_PORT="80.5" is not valid'],
    ['JOB_CONCURRENCY', '0', 'JOB_CONCURRENCY="0" is not valid: expected a whole number from 1 to 10'],
    ['JOB_CONCURRENCY', '11', 'JOB_CONCURRENCY="11" is not valid'],
    [
      'UPTIME_CONCURRENCY',
      '1001',
      'UPTIME_CONCURRENCY="1001" is not valid: expected a whole number from 1 to 1000',
    ],
    ['AGENT_FLAVOR', 'lite', 'AGENT_FLAVOR="lite" is not valid: expected one of full, uptime'],
    ['LOG_LEVEL', 'verbose', 'LOG_LEVEL="verbose" is not valid: expected one of debug, info, warn, error'],
    ['EXTERNAL_OBSERVABILITY', 'maybe', 'EXTERNAL_OBSERVABILITY="maybe" is not valid'],
    [
      'SERVICE_API_URL',
      'hub:8080',
      'SERVICE_API_URL="hub:8080" is not valid: expected a URL with scheme http or https',
    ],
    ['SENTRY_DSN', 'not a url', 'SENTRY_DSN="not a url" is not valid: expected an absolute URL'],
    ['AGENT_DRAIN_TIMEOUT', '-1', 'AGENT_DRAIN_TIMEOUT="-1" is not valid'],
  ])('refuses %s=%s naming the variable, the value and the rule', (name, value, message) => {
    const attempt = () => loadAgentConfig({ [name]: value }, '/srv')
    expect(attempt).toThrow(ConfigError)
    expect(attempt).toThrow(message)
  })

  it('requires API_KEY with SERVICE_API_URL without printing any key', () => {
    expect(() => loadAgentConfig({ SERVICE_API_URL: 'http://127.0.0.1:8080' }, '/srv')).toThrow(
      'API_KEY="" is not valid: required when SERVICE_API_URL is set',
    )
  })
})
