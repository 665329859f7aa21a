import { describe, expect, it } from 'vitest'
import { validateAssertions } from '../../src/constructs/validate-assertions.ts'
import {
  AssertionBuilder,
  DnsAssertionBuilder,
  IcmpAssertionBuilder,
  TcpAssertionBuilder,
  UrlAssertionBuilder,
} from '../../src/index.ts'

function problems(assertions: unknown, type: 'URL' | 'API' | 'DNS' | 'TCP' | 'ICMP' = 'API'): string[] {
  const found: string[] = []
  validateAssertions((p, r) => found.push(`${p}: ${r}`), 'assertions', assertions, type)
  return found
}

describe('assertion builders', () => {
  it("write Checkly's wire shape, targets as strings", () => {
    expect(UrlAssertionBuilder.statusCode().equals(200)).toEqual({
      source: 'STATUS_CODE',
      property: '',
      comparison: 'EQUALS',
      target: '200',
      regex: null,
    })
    expect(UrlAssertionBuilder.headers('content-type', '(\\w+)/').contains('application')).toEqual({
      source: 'HEADERS',
      property: 'content-type',
      comparison: 'CONTAINS',
      target: 'application',
      regex: '(\\w+)/',
    })
    expect(AssertionBuilder.jsonBody('$.ok').equals(true)).toMatchObject({
      source: 'JSON_BODY',
      property: '$.ok',
      target: 'true',
    })
    expect(DnsAssertionBuilder.jsonAnswer('$.Answer[0].data').notEmpty()).toMatchObject({
      source: 'JSON_ANSWER',
      comparison: 'NOT_EMPTY',
      target: '',
    })
    expect(TcpAssertionBuilder.responseTime().greaterThan(0)).toMatchObject({
      source: 'RESPONSE_TIME',
      target: '0',
    })
    expect(IcmpAssertionBuilder.latency('max').lessThan(5)).toMatchObject({
      source: 'LATENCY',
      property: 'max',
    })
  })

  it('offer all fourteen comparisons on general sources, each accepted by validation', () => {
    const b = AssertionBuilder.textBody()
    const all = [
      b.equals('a'),
      b.notEquals('a'),
      b.lessThan(1),
      b.greaterThan(1),
      b.contains('a'),
      b.notContains('a'),
      b.isEmpty(),
      b.notEmpty(),
      b.isNull(),
      b.notNull(),
      b.hasKey('a'),
      b.notHasKey('a'),
      b.hasValue('a'),
      b.notHasValue('a'),
    ]
    expect(all.map((a) => a.comparison)).toEqual([
      'EQUALS',
      'NOT_EQUALS',
      'LESS_THAN',
      'GREATER_THAN',
      'CONTAINS',
      'NOT_CONTAINS',
      'IS_EMPTY',
      'NOT_EMPTY',
      'IS_NULL',
      'NOT_NULL',
      'HAS_KEY',
      'NOT_HAS_KEY',
      'HAS_VALUE',
      'NOT_HAS_VALUE',
    ])
    expect(problems(all)).toEqual([])
  })
})

describe('assertion validation', () => {
  it('refuses a non-array, non-objects, unknown comparisons and missing targets', () => {
    expect(problems('status 200')).toEqual(['assertions: must be an array of assertions, got "status 200"'])
    expect(
      problems([
        'x',
        { source: 'TEXT_BODY', property: '', comparison: 'MATCHES_ROUGHLY', target: 'a' },
        { source: 'TEXT_BODY', property: '', comparison: 'CONTAINS', target: '' },
        { source: 'TEXT_BODY', property: '' },
      ]),
    ).toEqual([
      'assertions[0]: must be an assertion made with a API assertion builder, got "x"',
      'assertions[1].comparison: must be one of EQUALS, NOT_EQUALS, LESS_THAN, GREATER_THAN, CONTAINS, NOT_CONTAINS, IS_EMPTY, NOT_EMPTY, IS_NULL, NOT_NULL, HAS_KEY, NOT_HAS_KEY, HAS_VALUE, NOT_HAS_VALUE, got "MATCHES_ROUGHLY"',
      'assertions[2].target: CONTAINS needs a target, got ""',
      'assertions[3].comparison: is required; one of EQUALS, NOT_EQUALS, LESS_THAN, GREATER_THAN, CONTAINS, NOT_CONTAINS, IS_EMPTY, NOT_EMPTY, IS_NULL, NOT_NULL, HAS_KEY, NOT_HAS_KEY, HAS_VALUE, NOT_HAS_VALUE',
    ])
  })

  it('keeps numeric sources to numeric comparisons and numeric targets', () => {
    expect(problems([UrlAssertionBuilder.statusCode().lessThan(400)], 'URL')).toEqual([])
    expect(
      problems(
        [
          { source: 'STATUS_CODE', property: '', comparison: 'CONTAINS', target: '20' },
          { source: 'RESPONSE_TIME', property: '', comparison: 'LESS_THAN', target: 'soon' },
        ],
        'URL',
      ),
    ).toEqual([
      'assertions[0].comparison: STATUS_CODE is a number: use one of EQUALS, NOT_EQUALS, LESS_THAN, GREATER_THAN',
      'assertions[1].target: RESPONSE_TIME compares with a number, got "soon"',
    ])
  })

  it('refuses an invalid regex and accepts a valid one', () => {
    expect(problems([UrlAssertionBuilder.headers('x', '^v(\\d+)').equals('1')], 'URL')).toEqual([])
    expect(problems([UrlAssertionBuilder.headers('x', '(unclosed').equals('1')], 'URL')[0]).toMatch(
      /^assertions\[0\]\.regex: is not a valid regular expression: /,
    )
  })

  it('accepts each type its own sources only', () => {
    expect(problems([DnsAssertionBuilder.responseCode().equals('NOERROR')], 'DNS')).toEqual([])
    expect(problems([DnsAssertionBuilder.responseCode().equals('NOERROR')], 'TCP')).toEqual([
      'assertions[0].source: must be one of RESPONSE_DATA, RESPONSE_TIME for TCP checks, got "RESPONSE_CODE"',
    ])
    expect(problems([AssertionBuilder.jsonBody('$.a').equals(1)], 'URL')).toEqual([
      'assertions[0].source: must be one of STATUS_CODE, HEADERS, TEXT_BODY, RESPONSE_TIME for URL checks, got "JSON_BODY"',
    ])
  })
})
