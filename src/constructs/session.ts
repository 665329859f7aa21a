// How a construct reaches the load that is importing its file. The loader runs each file's import
// inside a FileScope (AsyncLocalStorage), and `new X(...)` adds itself to the scope it finds. Why this
// shape: check files stay Checkly-like (a bare `new UrlMonitor(...)`, no export needed); there is no
// module-level registry to reset, so two loads (even concurrent ones) never see each other's checks;
// and a construct made outside any load (a unit test, a script) simply is not registered.

import { AsyncLocalStorage } from 'node:async_hooks'
import type { Check } from './check.ts'

export interface FileScope {
  /** Absolute path of the check file being imported. */
  readonly file: string
  add(construct: Check): void
}

const scopes = new AsyncLocalStorage<FileScope>()

export function runInFileScope<T>(scope: FileScope, fn: () => Promise<T>): Promise<T> {
  return scopes.run(scope, fn)
}

export function registerConstruct(construct: Check): void {
  scopes.getStore()?.add(construct)
}
