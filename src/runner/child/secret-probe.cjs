// Preloaded (NODE_OPTIONS --require) into every Node process of a check run. Values a check assigns to
// process.env.SERVICE_SECRET_* are appended to a file the agent reads after the run, so they can be
// scrubbed like configured secrets. Written at assignment time, so a run killed at its timeout
// still reports them; a scan at exit catches assignments that bypassed the proxy.
const { appendFileSync } = require('node:fs')

// Runtimes 2025.04 and later scrub Authorization headers: requests made with node:http(s) (Playwright's
// request fixture, axios) or fetch have their header values recorded like secrets.
function captureAuthorization(record) {
  const fromHeaders = (headers) => {
    if (!headers) return
    if (typeof headers.forEach === 'function' && typeof headers.get === 'function') {
      headers.forEach((value, key) => {
        fromPair(key, value)
      })
    } else if (Array.isArray(headers)) {
      for (const pair of headers) if (Array.isArray(pair)) fromPair(pair[0], pair[1])
    } else if (typeof headers === 'object') {
      for (const [key, value] of Object.entries(headers)) fromPair(key, value)
    }
  }
  const fromPair = (key, value) => {
    if (String(key).toLowerCase() !== 'authorization' || value === undefined) return
    for (const v of Array.isArray(value) ? value : [value]) record('SERVICE_SECRET_AUTHORIZATION', v)
  }
  for (const mod of [require('node:http'), require('node:https')]) {
    for (const name of ['request', 'get']) {
      const original = mod[name]
      mod[name] = function patched(...args) {
        for (const a of args) if (a && typeof a === 'object' && !(a instanceof URL)) fromHeaders(a.headers)
        const req = original.apply(this, args)
        try {
          const header = req.getHeader('authorization')
          if (header !== undefined) fromPair('authorization', header)
        } catch {}
        return req
      }
    }
  }
  if (typeof globalThis.fetch === 'function') {
    const originalFetch = globalThis.fetch
    globalThis.fetch = function patchedFetch(input, init) {
      if (input && typeof input === 'object' && 'headers' in input) fromHeaders(input.headers)
      if (init) fromHeaders(init.headers)
      return originalFetch.call(this, input, init)
    }
  }
}

const file = process.env.OUTPOST_SECRETS_FILE
if (file) {
  const PREFIX = 'SERVICE_SECRET_'
  const seen = new Set()
  const record = (key, value) => {
    const text = String(value)
    if (!key.startsWith(PREFIX) || text === '' || seen.has(text)) return
    seen.add(text)
    try {
      appendFileSync(file, `${JSON.stringify({ key, value: text })}\n`)
    } catch {
      // The run directory is gone: nothing left to protect.
    }
  }
  const realEnv = process.env
  for (const [key, value] of Object.entries(realEnv)) if (value !== undefined) record(key, value)
  process.env = new Proxy(realEnv, {
    set(target, key, value) {
      if (typeof key === 'string') record(key, value)
      return Reflect.set(target, key, value)
    },
    defineProperty(target, key, descriptor) {
      if (typeof key === 'string' && 'value' in descriptor) record(key, descriptor.value)
      return Reflect.defineProperty(target, key, descriptor)
    },
  })
  if (process.env.OUTPOST_CAPTURE_AUTHORIZATION === '1') captureAuthorization(record)
  process.on('exit', () => {
    for (const [key, value] of Object.entries(realEnv)) if (value !== undefined) record(key, value)
  })
}
