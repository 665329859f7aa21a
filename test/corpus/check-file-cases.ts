// Malformed check files: each file of the corpus, and the diagnostics it must produce. Every case is
// one file in one directory loaded at once, beside a good file that must still load.

export interface CheckFileCase {
  file: string
  source: string
  /** Each expected diagnostic: its property (undefined: a whole-file problem) and its reason. */
  expect: { logicalId?: string; property?: string; reason: RegExp }[]
}

const INJECTIONS = [
  "'; DROP TABLE checks; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the injection is this literal text.
  '${process.exit(7)}',
  'nul\u0000byte',
  '🔥💥 emoji',
] as const

const url = (id: string, props: string): string =>
  `import { UrlMonitor } from 'outpost'\nnew UrlMonitor(${JSON.stringify(id)}, ${props})\n`

const good = "request: { url: 'http://127.0.0.1:9/' }"

export const GOOD_FILE = {
  file: 'good.check.ts',
  source: url('good', `{ name: 'Good', ${good} }`),
}

export const checkFileCases: CheckFileCase[] = [
  {
    file: 'syntax-error.check.ts',
    source: "import { UrlMonitor } from 'outpost'\nnew UrlMonitor('s', { name: \n",
    expect: [{ reason: /^failed to load: SyntaxError: Expression expected/ }],
  },
  {
    file: 'throws-at-import.check.ts',
    source: "import { UrlMonitor } from 'outpost'\n\nthrow new Error('boom at import')\n",
    expect: [{ reason: /^failed to load \(line 3\): Error: boom at import$/ }],
  },
  {
    file: 'throws-a-string.check.ts',
    source: "throw 'not even an Error'\n",
    expect: [{ reason: /^failed to load: threw not even an Error$/ }],
  },
  {
    file: 'process-exit-at-import.check.ts',
    // A check file runs inside the agent: process.exit there would end it; the loader turns it into a problem.
    source: 'process.exit(3)\n',
    expect: [
      {
        reason:
          /^failed to load \(line 1\): ProcessExitInCheckFile: process\.exit\(3\) was called; a check file must not end the agent$/,
      },
    ],
  },
  {
    file: 'wrong-types.check.ts',
    source: url(
      'wrong-types',
      `{
  name: 42,
  frequency: 'often',
  request: { url: 17, method: 'TELEPORT', followRedirects: 'yes', skipSSL: 1, headers: 'x', assertions: 'all' },
  degradedResponseTime: '5',
  maxResponseTime: -1,
  activated: 'yes',
  muted: 0,
  tags: 'a',
  locations: 'mars',
  retryStrategy: 7,
  environmentVariables: {},
  timeoutSeconds: 'ten',
}`,
    ),
    expect: [
      { logicalId: 'wrong-types', property: 'name', reason: /^must be a string, got 42$/ },
      { logicalId: 'wrong-types', property: 'frequency', reason: /^must be a Frequency .*got "often"$/ },
      { logicalId: 'wrong-types', property: 'request.url', reason: /^must be a string, got 17$/ },
      {
        logicalId: 'wrong-types',
        property: 'request.method',
        reason: /^must be one of GET, HEAD, got "TELEPORT"$/,
      },
      {
        logicalId: 'wrong-types',
        property: 'degradedResponseTime',
        reason: /^must be an integer from 0 to 30000 ms, got "5"$/,
      },
      {
        logicalId: 'wrong-types',
        property: 'maxResponseTime',
        reason: /^must be an integer from 0 to 30000 ms, got -1$/,
      },
      { logicalId: 'wrong-types', property: 'activated', reason: /^must be true or false, got "yes"$/ },
      { logicalId: 'wrong-types', property: 'muted', reason: /^must be true or false, got 0$/ },
      {
        logicalId: 'wrong-types',
        property: 'request.followRedirects',
        reason: /^must be true or false, got "yes"$/,
      },
      { logicalId: 'wrong-types', property: 'request.skipSSL', reason: /^must be true or false, got 1$/ },
      {
        logicalId: 'wrong-types',
        property: 'request.headers',
        reason: /^must be an array of \{key, value\}, got "x"$/,
      },
      {
        logicalId: 'wrong-types',
        property: 'request.assertions',
        reason: /^must be an array of assertions, got "all"$/,
      },
      { logicalId: 'wrong-types', property: 'tags', reason: /^must be an array of strings, got "a"$/ },
      {
        logicalId: 'wrong-types',
        property: 'locations',
        reason: /^must be an array of strings, got "mars"$/,
      },
      {
        logicalId: 'wrong-types',
        property: 'retryStrategy',
        reason: /^must be built with RetryStrategyBuilder, got 7$/,
      },
      {
        logicalId: 'wrong-types',
        property: 'environmentVariables',
        reason: /^must be an array of \{key, value, secret\?\}/,
      },
      {
        logicalId: 'wrong-types',
        property: 'timeoutSeconds',
        reason: /^must be an integer from 1 to 3600 s, got "ten"$/,
      },
    ],
  },
  {
    file: 'unknown-options.check.ts',
    source: url('unknown-options', `{ name: 'U', frequncy: 'EVERY_1M', ${good}, sql: 'x' }`),
    expect: [
      {
        logicalId: 'unknown-options',
        property: 'frequncy',
        reason: /^unknown option; known: name, .*frequency/,
      },
      { logicalId: 'unknown-options', property: 'sql', reason: /^unknown option; known: / },
    ],
  },
  {
    file: 'huge-strings.check.ts',
    source: url(
      'huge-strings',
      `{ name: 'n'.repeat(1_000_000), request: { url: 'http://127.0.0.1/' + 'p'.repeat(100_000) }, tags: ['t'.repeat(100_000)] }`,
    ),
    expect: [
      {
        logicalId: 'huge-strings',
        property: 'name',
        reason: /^must be at most 1024 characters, got 1000000$/,
      },
      {
        logicalId: 'huge-strings',
        property: 'tags[0]',
        reason: /^must be at most 256 characters, got 100000$/,
      },
      {
        logicalId: 'huge-strings',
        property: 'request.url',
        reason: /^must be at most 2048 characters, got 100017$/,
      },
    ],
  },
  {
    file: 'huge-logical-id.check.ts',
    source: url('x'.repeat(10_000), `{ name: 'H', ${good} }`),
    expect: [
      {
        property: 'logicalId',
        reason: /^must be 1 to 255 letters, digits, '_', '-' or '\.', got "x{77}\.\.\."$/,
      },
    ],
  },
  ...INJECTIONS.map(
    (text, i): CheckFileCase => ({
      file: `injection-${i}.check.ts`,
      source: url(
        text,
        `{ name: ${JSON.stringify(text)}, request: { url: ${JSON.stringify(text)} }, tags: [${JSON.stringify(text)}] }`,
      ),
      expect: [
        { property: 'logicalId', reason: /^must be 1 to 255 letters, digits, '_', '-' or '\.', got "/ },
        { property: 'request.url', reason: /^must be an absolute http\(s\) URL, got "/ },
      ],
    }),
  ),
  {
    file: 'multistep-traversal.check.ts',
    source: `import { MultiStepCheck } from 'outpost'
new MultiStepCheck('ms-traversal', { name: 'T', runtimeId: '2022.10', code: { entrypoint: '../../../../etc/passwd' } })
new MultiStepCheck('ms-both', { name: 'B', code: { entrypoint: './x.spec.ts', content: 'test()' } })
`,
    expect: [
      {
        logicalId: 'ms-traversal',
        property: 'code.entrypoint',
        reason: /^must name a \.spec\.ts or \.spec\.js file, got "\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd"$/,
      },
      {
        logicalId: 'ms-traversal',
        property: 'runtimeId',
        reason: /^runtime 2022\.10 does not support multistep/,
      },
      {
        logicalId: 'ms-both',
        property: 'code',
        reason: /^has both entrypoint and content; give exactly one$/,
      },
    ],
  },
  {
    file: 'other-types.check.ts',
    source: `import { DnsMonitor, HeartbeatMonitor, TcpMonitor } from 'outpost'
new TcpMonitor('tcp-bad', { name: 'T', request: { hostname: '\${process.exit()}', port: 70000 } })
new DnsMonitor('dns-bad', { name: 'D', request: { hostname: '', recordType: 'BOGUS' } })
new HeartbeatMonitor('hb-bad', { name: 'H', period: -1, periodUnit: 'fortnights', grace: 'x' })
`,
    expect: [
      {
        logicalId: 'tcp-bad',
        property: 'request.hostname',
        reason: /^must be a hostname or an IP address, got "\$\{process\.exit\(\)\}"$/,
      },
      {
        logicalId: 'tcp-bad',
        property: 'request.port',
        reason: /^must be an integer from 1 to 65535, got 70000$/,
      },
      { logicalId: 'dns-bad', property: 'request.hostname', reason: /^unknown option; known: query, / },
      { logicalId: 'dns-bad', property: 'request.query', reason: /^is required$/ },
      {
        logicalId: 'dns-bad',
        property: 'request.recordType',
        reason: /^must be one of A, AAAA, .*got "BOGUS"$/,
      },
      { logicalId: 'hb-bad', property: 'period', reason: /^must be a whole number, got -1$/ },
      {
        logicalId: 'hb-bad',
        property: 'periodUnit',
        reason: /^must be one of seconds, minutes, hours, days, got "fortnights"$/,
      },
      { logicalId: 'hb-bad', property: 'grace', reason: /^must be a whole number, got "x"$/ },
      { logicalId: 'hb-bad', property: 'graceUnit', reason: /^is required with grace/ },
    ],
  },
]
