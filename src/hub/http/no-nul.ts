// U+0000 is refused in every string a request declares (body fields, query, path parameters), on
// both databases alike: PostgreSQL cannot store it in text at all (22021), and SQLite would store it
// where C tools cut it short. The rule is added to the route's schemas, so the 400 names the field
// like any other validation error. Content the schema leaves open (the free-form parts of a result
// or a check definition) is stored as JSON, where a NUL is the escape \u0000 and round-trips.

/** The pattern of the rule; errors.ts recognises it to word the message. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$'

type Schema = Record<string, unknown>

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function withoutNul(schema: unknown): unknown {
  if (!isSchema(schema)) return schema
  const copy: Schema = { ...schema }
  if (
    copy.type === 'string' &&
    copy.enum === undefined &&
    copy.const === undefined &&
    copy.format === undefined
  ) {
    // A pattern of its own (say '^https?://') may still let a NUL through: the rule goes beside it.
    if (copy.pattern === undefined) copy.pattern = NO_NUL_PATTERN
    else copy.allOf = [...(Array.isArray(copy.allOf) ? copy.allOf : []), { pattern: NO_NUL_PATTERN }]
  }
  if (isSchema(copy.properties)) {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties).map(([name, property]) => [name, withoutNul(property)]),
    )
  }
  if (isSchema(copy.items)) copy.items = withoutNul(copy.items)
  if (isSchema(copy.additionalProperties)) copy.additionalProperties = withoutNul(copy.additionalProperties)
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(withoutNul)
  }
  return copy
}

/** The route's schema with the rule on every string of the request parts; responses are left alone. */
export function refuseNulInRequests<S extends object>(schema: S): S {
  const copy: Schema = { ...(schema as Schema) }
  for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
    if (copy[part] !== undefined) copy[part] = withoutNul(copy[part])
  }
  return copy as S
}
