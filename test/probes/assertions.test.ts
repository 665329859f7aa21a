import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Assertion } from '../../src/model/checks.ts'
import {
  type AssertionSubject,
  EVALUATED_COMPARISONS,
  evaluateAssertion,
  evaluateAssertions,
  MAX_ACTUAL_LENGTH,
  unsupportedSource,
} from '../../src/probes/assertions.ts'
import { parseJsonPath, queryJsonPath } from '../../src/probes/json-path.ts'
import { decideStatus } from '../../src/probes/thresholds.ts'

function a(comparison: string, target = '', extra: Partial<Assertion> = {}): Assertion {
  return { source: 'TEST', property: '', comparison, target, regex: null, ...extra }
}

function passes(
  comparison: string,
  value: unknown,
  target = '',
  subject: Partial<AssertionSubject> = {},
): boolean {
  return evaluateAssertion(a(comparison, target), { value, ...subject }).passed
}

describe('comparisons', () => {
  it('EQUALS compares numbers as numbers and everything else as text', () => {
    expect(passes('EQUALS', 200, '200')).toBe(true)
    expect(passes('EQUALS', 200, '200.0')).toBe(true)
    expect(passes('EQUALS', '200', '200')).toBe(true)
    expect(passes('EQUALS', 201, '200')).toBe(false)
    expect(passes('EQUALS', 'NOERROR', 'NOERROR')).toBe(true)
    expect(passes('EQUALS', 'NOERROR', 'noerror')).toBe(false)
    expect(passes('EQUALS', true, 'true')).toBe(true)
    expect(passes('EQUALS', null, '')).toBe(false)
    expect(passes('EQUALS', null, 'null')).toBe(true)
    expect(passes('NOT_EQUALS', 500, '200')).toBe(true)
    expect(passes('NOT_EQUALS', 200, '200')).toBe(false)
  })

  it('LESS_THAN and GREATER_THAN need numbers on both sides', () => {
    expect(passes('LESS_THAN', 399, '400')).toBe(true)
    expect(passes('LESS_THAN', 400, '400')).toBe(false)
    expect(passes('GREATER_THAN', 12.5, '12')).toBe(true)
    expect(passes('GREATER_THAN', '13', '12')).toBe(true)
    expect(passes('GREATER_THAN', 'abc', '12')).toBe(false)
    expect(passes('LESS_THAN', null, '12')).toBe(false)
    expect(passes('LESS_THAN', 5, 'five')).toBe(false)
    expect(passes('LESS_THAN_OR_EQUAL', 400, '400')).toBe(true)
    expect(passes('GREATER_THAN_OR_EQUAL', 399, '400')).toBe(false)
  })

  it('CONTAINS looks into text, arrays and JSON', () => {
    expect(passes('CONTAINS', 'hello world', 'lo wo')).toBe(true)
    expect(passes('CONTAINS', 'hello', 'bye')).toBe(false)
    expect(passes('CONTAINS', ['a=1', 'b=2'], 'b=')).toBe(true)
    expect(passes('CONTAINS', { k: 'needle' }, 'needle')).toBe(true)
    expect(passes('CONTAINS', null, 'x')).toBe(false)
    expect(passes('NOT_CONTAINS', null, 'x')).toBe(true)
    expect(passes('NOT_CONTAINS', 'hello', 'ell')).toBe(false)
  })

  it('IS_EMPTY, IS_NULL and their negations', () => {
    for (const empty of [null, undefined, '', [], {}]) expect(passes('IS_EMPTY', empty)).toBe(true)
    for (const full of ['x', 0, [1], { a: 1 }, false]) expect(passes('IS_EMPTY', full)).toBe(false)
    expect(passes('NOT_EMPTY', 'x')).toBe(true)
    expect(passes('IS_NULL', null)).toBe(true)
    expect(passes('IS_NULL', undefined)).toBe(true)
    expect(passes('IS_NULL', '')).toBe(false)
    expect(passes('NOT_NULL', 0)).toBe(true)
  })

  it('HAS_KEY / HAS_VALUE look at objects and arrays', () => {
    expect(passes('HAS_KEY', { id: 1 }, 'id')).toBe(true)
    expect(passes('HAS_KEY', { id: 1 }, 'ID')).toBe(false)
    expect(passes('HAS_KEY', { 'content-type': 'x' }, 'Content-Type', { caseInsensitiveKeys: true })).toBe(
      true,
    )
    expect(passes('NOT_HAS_KEY', { id: 1 }, 'name')).toBe(true)
    expect(passes('HAS_KEY', 'id', 'id')).toBe(false)
    expect(passes('HAS_VALUE', { a: 1, b: 'two' }, 'two')).toBe(true)
    expect(passes('HAS_VALUE', [1, 2, 3], '2')).toBe(true)
    expect(passes('HAS_VALUE', [1, 2, 3], '4')).toBe(false)
    expect(passes('NOT_HAS_VALUE', [1, 2, 3], '4')).toBe(true)
    expect(passes('HAS_VALUE', 'alone', 'alone')).toBe(true)
  })

  it('MATCHES tests a regular expression given as target', () => {
    expect(passes('MATCHES', 'v1.2.3', '^v\\d+\\.\\d+')).toBe(true)
    expect(passes('MATCHES', 'beta', '^v')).toBe(false)
  })

  it('a negated comparison is always the opposite of its positive form', () => {
    const pairs = [
      ['EQUALS', 'NOT_EQUALS'],
      ['CONTAINS', 'NOT_CONTAINS'],
      ['IS_EMPTY', 'NOT_EMPTY'],
      ['IS_NULL', 'NOT_NULL'],
      ['HAS_KEY', 'NOT_HAS_KEY'],
      ['HAS_VALUE', 'NOT_HAS_VALUE'],
    ] as const
    const values = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.array(fc.oneof(fc.string(), fc.integer())),
      fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())),
    )
    fc.assert(
      fc.property(values, fc.string(), fc.constantFrom(...pairs), (value, target, [positive, negative]) => {
        expect(passes(positive, value, target)).toBe(!passes(negative, value, target))
      }),
    )
  })
})

describe('regex extraction', () => {
  it('compares the first capture group, or the whole match', () => {
    const version = evaluateAssertion(a('EQUALS', '2', { regex: 'version=(\\d+)' }), {
      value: 'x version=2 y',
    })
    expect(version).toMatchObject({ passed: true, actual: '2' })
    const whole = evaluateAssertion(a('EQUALS', 'abc', { regex: '[a-c]+' }), { value: '--abc--' })
    expect(whole).toMatchObject({ passed: true, actual: 'abc' })
  })

  it('no match gives null, which IS_NULL can assert', () => {
    const r = evaluateAssertion(a('IS_NULL', '', { regex: 'nope(\\d)' }), { value: 'text' })
    expect(r).toMatchObject({ passed: true, actual: null })
  })

  it('on text sources a property is the regex when no regex is given', () => {
    const r = evaluateAssertion(a('EQUALS', '42', { property: 'answer: (\\d+)' }), {
      value: 'the answer: 42',
      propertyIsRegex: true,
    })
    expect(r).toMatchObject({ passed: true, actual: '42', property: 'answer: (\\d+)' })
  })
})

describe('evaluateAssertions', () => {
  it('keeps every result and explains each failure', () => {
    const assertions = [
      { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200', regex: null },
      { source: 'HEADERS', property: 'x-id', comparison: 'EQUALS', target: 'abc', regex: null },
    ]
    const found: Record<string, unknown> = { STATUS_CODE: 500, HEADERS: 'abc' }
    const { results, failures } = evaluateAssertions(assertions, (x) => ({ value: found[x.source] }))
    expect(results).toEqual([
      { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', actual: 500, passed: false },
      {
        source: 'HEADERS',
        property: 'x-id',
        comparison: 'EQUALS',
        target: 'abc',
        actual: 'abc',
        passed: true,
      },
    ])
    expect(failures).toEqual(['STATUS_CODE EQUALS "200" failed: actual 500'])
  })

  it('an unknown source, comparison or a bad regex fails that assertion with a reason', () => {
    const assertions = [
      { source: 'BODY_SIZE', property: '', comparison: 'EQUALS', target: '1', regex: null },
      { source: 'STATUS_CODE', property: '', comparison: 'ROUGHLY', target: '1', regex: null },
      { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '1', regex: '(' },
    ]
    const { results, failures } = evaluateAssertions(assertions, (x) =>
      x.source === 'STATUS_CODE' ? { value: 1 } : unsupportedSource(x, ['STATUS_CODE']),
    )
    expect(results.map((r) => r.passed)).toEqual([false, false, false])
    expect(failures[0]).toBe("assertion source 'BODY_SIZE' is not supported here (allowed: STATUS_CODE)")
    expect(failures[1]).toMatch(/comparison 'ROUGHLY' is not supported \(allowed: EQUALS, .*MATCHES\)/)
    expect(failures[2]).toMatch(/invalid regular expression '\('/)
  })

  it('bounds long actual values', () => {
    const r = evaluateAssertion(a('CONTAINS', 'zzz'), { value: 'y'.repeat(10_000) })
    expect(typeof r.actual === 'string' && r.actual.length).toBe(MAX_ACTUAL_LENGTH + 1)
  })

  it('knows every comparison the model lists, plus Checkly extras', () => {
    expect(EVALUATED_COMPARISONS).toEqual(
      expect.arrayContaining(['EQUALS', 'HAS_KEY', 'NOT_HAS_VALUE', 'GREATER_THAN_OR_EQUAL', 'MATCHES']),
    )
  })
})

describe('JSON paths', () => {
  const doc = { Answer: [{ data: '1.2.3.4' }, { data: '5.6.7.8' }], 'odd key': { 'x.y': true } }

  it('reads keys, indexes, quoted keys and wildcards', () => {
    expect(queryJsonPath(doc, '$.Answer[0].data')).toBe('1.2.3.4')
    expect(queryJsonPath(doc, 'Answer[1].data')).toBe('5.6.7.8')
    expect(queryJsonPath(doc, '$.Answer[-1].data')).toBe('5.6.7.8')
    expect(queryJsonPath(doc, "$['odd key']['x.y']")).toBe(true)
    expect(queryJsonPath(doc, '$.Answer[*].data')).toEqual(['1.2.3.4', '5.6.7.8'])
    expect(queryJsonPath(doc, '$.Answer.*.data')).toEqual(['1.2.3.4', '5.6.7.8'])
    expect(queryJsonPath(doc, '$.Missing.data')).toBeUndefined()
    expect(queryJsonPath(doc, '$')).toBe(doc)
  })

  it('names the position of a syntax error', () => {
    expect(() => parseJsonPath('$.a[')).toThrow(/invalid JSON path '\$\.a\[' at position 3/)
    expect(() => parseJsonPath('$.a[x]')).toThrow(/expected a number, '\*' or a quoted key/)
  })
})

describe('decideStatus', () => {
  const limits = { degradedResponseTime: 100, maxResponseTime: 200, assertionFailures: [] }

  it('passes, degrades and fails on response time', () => {
    expect(decideStatus({ ...limits, responseTimeMs: 100 })).toEqual({ status: 'passed' })
    expect(decideStatus({ ...limits, responseTimeMs: 101 })).toEqual({ status: 'degraded' })
    expect(decideStatus({ ...limits, responseTimeMs: 201 })).toMatchObject({
      status: 'failed',
      error: { code: 'MAX_RESPONSE_TIME_EXCEEDED' },
    })
  })

  it('an error or a failed assertion fails whatever the time', () => {
    const error = { code: 'CONNECTION_REFUSED', message: 'refused' }
    expect(decideStatus({ ...limits, responseTimeMs: 1, error })).toEqual({ status: 'failed', error })
    expect(decideStatus({ ...limits, responseTimeMs: 1, assertionFailures: ['a', 'b'] })).toEqual({
      status: 'failed',
      error: { code: 'ASSERTION_FAILED', message: 'a (and 1 more)' },
    })
  })

  it('a limit of 0 is off', () => {
    expect(
      decideStatus({ ...limits, degradedResponseTime: 0, maxResponseTime: 0, responseTimeMs: 9e9 }),
    ).toEqual({
      status: 'passed',
    })
  })
})
