// The fluent part shared by every assertion builder (Checkly's GeneralAssertionBuilder and
// NumericAssertionBuilder): `UrlAssertionBuilder.statusCode().equals(200)` -> an Assertion object.

import type { AssertionSource, Comparison } from '../model/assertions.ts'
import type { Assertion } from '../model/checks.ts'

type Target = string | number | boolean

function assertion(
  source: AssertionSource,
  comparison: Comparison,
  target: Target | undefined,
  property: string,
  regex: string | undefined,
): Assertion {
  return {
    source,
    property,
    comparison,
    target: target === undefined ? '' : String(target),
    regex: regex ?? null,
  }
}

/** Comparisons that make sense on a number (status codes, times, latency, packet loss). */
export class NumericAssertionBuilder {
  readonly #source: AssertionSource
  readonly #property: string

  constructor(source: AssertionSource, property = '') {
    this.#source = source
    this.#property = property
  }

  equals(target: number): Assertion {
    return assertion(this.#source, 'EQUALS', target, this.#property, undefined)
  }
  notEquals(target: number): Assertion {
    return assertion(this.#source, 'NOT_EQUALS', target, this.#property, undefined)
  }
  lessThan(target: number): Assertion {
    return assertion(this.#source, 'LESS_THAN', target, this.#property, undefined)
  }
  greaterThan(target: number): Assertion {
    return assertion(this.#source, 'GREATER_THAN', target, this.#property, undefined)
  }
}

/** Every comparison, for text and JSON sources. */
export class GeneralAssertionBuilder {
  readonly #source: AssertionSource
  readonly #property: string
  readonly #regex: string | undefined

  constructor(source: AssertionSource, property = '', regex?: string) {
    this.#source = source
    this.#property = property
    this.#regex = regex
  }

  #make(comparison: Comparison, target?: Target): Assertion {
    return assertion(this.#source, comparison, target, this.#property, this.#regex)
  }

  equals(target: Target): Assertion {
    return this.#make('EQUALS', target)
  }
  notEquals(target: Target): Assertion {
    return this.#make('NOT_EQUALS', target)
  }
  lessThan(target: number): Assertion {
    return this.#make('LESS_THAN', target)
  }
  greaterThan(target: number): Assertion {
    return this.#make('GREATER_THAN', target)
  }
  contains(target: string): Assertion {
    return this.#make('CONTAINS', target)
  }
  notContains(target: string): Assertion {
    return this.#make('NOT_CONTAINS', target)
  }
  isEmpty(): Assertion {
    return this.#make('IS_EMPTY')
  }
  notEmpty(): Assertion {
    return this.#make('NOT_EMPTY')
  }
  isNull(): Assertion {
    return this.#make('IS_NULL')
  }
  notNull(): Assertion {
    return this.#make('NOT_NULL')
  }
  hasKey(target: string): Assertion {
    return this.#make('HAS_KEY', target)
  }
  notHasKey(target: string): Assertion {
    return this.#make('NOT_HAS_KEY', target)
  }
  hasValue(target: Target): Assertion {
    return this.#make('HAS_VALUE', target)
  }
  notHasValue(target: Target): Assertion {
    return this.#make('NOT_HAS_VALUE', target)
  }
}
