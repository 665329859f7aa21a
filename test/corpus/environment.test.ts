// Invalid environment values against the real CLI (`outpost agent`, standalone): each stops start-up
// with exit 2 and exactly one line naming the variable, the value (shortened, escaped) and the rule;
// nothing is bound, nothing written, no secret printed.

import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnAgent } from '../helpers/agent-process.ts'

const KEY = 'corpus-api-key-never-printed-7f3a'

interface EnvCase {
  name: string
  value: string
  /** The whole line expected after `outpost: `. */
  line: RegExp
  extra?: Record<string, string>
}

const whole = (from: number, to: number, fallback: number): string =>
  `expected a whole number from ${from} to ${to} \\(default ${fallback}\\)`

const cases: EnvCase[] = [
  {
    name: 'JOB_CONCURRENCY',
    value: '0',
    line: new RegExp(`^JOB_CONCURRENCY="0" is not valid: ${whole(1, 10, 1)}$`),
  },
  {
    name: 'JOB_CONCURRENCY',
    value: '1.5',
    line: new RegExp(`^JOB_CONCURRENCY="1.5" is not valid: ${whole(1, 10, 1)}$`),
  },
  {
    name: 'JOB_CONCURRENCY',
    value: '🔥',
    line: new RegExp(`^JOB_CONCURRENCY="🔥" is not valid: ${whole(1, 10, 1)}$`),
  },
  {
    name: 'JOB_CONCURRENCY',
    value: '9'.repeat(100_000),
    line: new RegExp(
      `^JOB_CONCURRENCY="9{77}\\.\\.\\. \\(100000 characters\\)" is not valid: ${whole(1, 10, 1)}$`,
    ),
  },
  {
    name: 'UPTIME_CONCURRENCY',
    value: '1001',
    line: new RegExp(`^UPTIME_CONCURRENCY="1001" is not valid: ${whole(1, 1000, 100)}$`),
  },
  {
    name: 'UPTIME_CONCURRENCY',
    value: '-3',
    line: new RegExp(`^UPTIME_CONCURRENCY="-3" is not valid: ${whole(1, 1000, 100)}$`),
  },
  {
    name: 'AGENT_HEALTH_PORT',
    value: '65536',
    line: new RegExp(`^AGENT_HEALTH_PORT="65536" is not valid: ${whole(0, 65535, 8081)}$`),
  },
  {
    name: 'AGENT_HEARTBEAT_PORT',
    value: "'; DROP TABLE checks; --",
    line: new RegExp(
      `^AGENT_HEARTBEAT_PORT="'; DROP TABLE checks; --" is not valid: ${whole(0, 65535, 8082)}$`,
    ),
  },
  {
    name: 'AGENT_DRAIN_TIMEOUT',
    value: '86401',
    line: new RegExp(`^AGENT_DRAIN_TIMEOUT="86401" is not valid: ${whole(0, 86400, 120)}$`),
  },
  {
    name: 'AGENT_FLAVOR',
    value: 'lite',
    line: /^AGENT_FLAVOR="lite" is not valid: expected one of full, uptime \(default full\)$/,
  },
  {
    name: 'EXTERNAL_OBSERVABILITY',
    value: '<script>alert(1)</script>',
    line: /^EXTERNAL_OBSERVABILITY="<script>alert\(1\)<\/script>" is not valid: expected one of on, off, true, false, 1, 0 \(default on\)$/,
  },
  {
    name: 'LOG_LEVEL',
    value: 'trace',
    line: /^LOG_LEVEL="trace" is not valid: expected one of debug, info, warn, error \(default info\)$/,
  },
  {
    name: 'SERVICE_API_URL',
    value: '../../etc/passwd',
    line: /^SERVICE_API_URL="\.\.\/\.\.\/etc\/passwd" is not valid: expected an absolute URL such as http:\/\/host:port$/,
    extra: { API_KEY: KEY },
  },
  {
    name: 'SERVICE_API_URL',
    value: 'ftp://hub.example:21',
    line: /^SERVICE_API_URL="ftp:\/\/hub\.example:21" is not valid: expected a URL with scheme http or https$/,
    extra: { API_KEY: KEY },
  },
  {
    name: 'API_KEY',
    value: '',
    line: /^API_KEY="" is not valid: required when SERVICE_API_URL is set/,
    extra: { SERVICE_API_URL: 'http://127.0.0.1:9' },
  },
  {
    name: 'SENTRY_DSN',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the injection is this literal text.
    value: '${process.exit()}',
    line: /^SENTRY_DSN="\$\{process\.exit\(\)\}" is not valid: expected an absolute URL such as http:\/\/host:port$/,
  },
  {
    // A proxy password is a secret too: the line shows where the problem is, not the password.
    name: 'HTTPS_PROXY',
    value: 'socks5://proxyuser:proxy-pass-9c1@127.0.0.1:1080',
    line: /^HTTPS_PROXY="socks5:\/\/proxyuser:\*\*\*@127\.0\.0\.1:1080" is not valid: expected a URL with scheme http or https$/,
  },
  {
    name: 'HTTP_PROXY',
    value: 'not a url with user:proxy-pass-9c1@host',
    line: /^HTTP_PROXY="not a url with user:\*\*\*@host" is not valid: expected an absolute URL such as http:\/\/host:port$/,
  },
]

describe('corpus: invalid environment values', () => {
  let cwd: string
  beforeAll(async () => {
    cwd = await mkdtemp(path.join(tmpdir(), 'outpost-env-corpus-'))
  })
  afterAll(() => rm(cwd, { recursive: true, force: true }))

  it.each(cases.map((c) => [`${c.name}=${c.value.slice(0, 40)}`, c] as const))('%s', async (_label, c) => {
    const dataDir = path.join(cwd, 'data')
    const agent = spawnAgent(['agent', '--checks', path.join(cwd, 'none')], {
      API_KEY: KEY,
      AGENT_DATA_DIR: dataDir,
      AGENT_HEALTH_PORT: '0',
      AGENT_HEARTBEAT_PORT: '0',
      AGENT_LISTEN_HOST: '127.0.0.1',
      ...c.extra,
      [c.name]: c.value,
    })
    const { code } = await agent.exited
    const lines = agent.output().split('\n').filter(Boolean)
    expect(code).toBe(2)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^outpost: /)
    expect(lines[0]!.slice('outpost: '.length)).toMatch(c.line)
    expect(agent.output()).not.toContain(KEY)
    expect(agent.output()).not.toContain('proxy-pass-9c1')
    // Refused before anything was stored.
    expect(await readdir(cwd)).toEqual([])
  })
})
