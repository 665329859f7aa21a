// Module resolution for check files, wherever their directory is (a user's /checks mount, a temp dir):
// - the bare specifier `outpost` resolves to this package's entry, so check files need no install;
// - every local file a check file imports carries the load's marker query, so a second load in the
//   same process evaluates fresh copies instead of Node's cached modules.
// The outpost sources themselves never get the marker: constructs must be the very modules whose
// FileScope the loader set up.

import { registerHooks } from 'node:module'

export const LOAD_MARKER = 'outpost-load'

export interface CheckImportHooksOptions {
  /** file: URL of the package entry (src/index.ts). */
  packageEntryUrl: string
  /** file: URL prefix of the package's sources, which are shared by every load. */
  packageSourcesUrl: string
}

export interface Deregister {
  deregister(): void
}

function markerOf(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith('file:')) return undefined
  return new URL(url).searchParams.get(LOAD_MARKER) ?? undefined
}

export function withLoadMarker(url: string, loadId: string): string {
  const marked = new URL(url)
  marked.searchParams.set(LOAD_MARKER, loadId)
  return marked.href
}

/** Registered for the duration of one load; concurrent loads each add one, and they agree. */
export function registerCheckImportHooks(options: CheckImportHooksOptions): Deregister {
  return registerHooks({
    resolve(specifier, context, nextResolve) {
      const loadId = markerOf(context.parentURL)
      if (loadId === undefined) return nextResolve(specifier, context)
      if (specifier === 'outpost') return { url: options.packageEntryUrl, shortCircuit: true }
      const resolved = nextResolve(specifier, context)
      const url = resolved.url
      const local =
        url.startsWith('file:') &&
        !url.includes('/node_modules/') &&
        !url.startsWith(options.packageSourcesUrl) &&
        markerOf(url) === undefined
      return local ? { ...resolved, url: withLoadMarker(url, loadId) } : resolved
    },
  })
}
