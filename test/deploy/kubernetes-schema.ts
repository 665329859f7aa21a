// Validates Kubernetes manifests offline against the Kubernetes API's OpenAPI schemas, as compiled into
// the `kubernetes-models` package (one validator per kind, types, formats and required fields).

import { readFile } from 'node:fs/promises'
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment'
import {
  type IPodDisruptionBudget,
  PodDisruptionBudget,
} from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { type ISecret, Secret } from 'kubernetes-models/v1/Secret'
import { parseAllDocuments } from 'yaml'

export type Manifest =
  | { kind: 'Deployment'; value: IDeployment }
  | { kind: 'PodDisruptionBudget'; value: IPodDisruptionBudget }
  | { kind: 'Secret'; value: ISecret }

export class ManifestError extends Error {
  override name = 'ManifestError'
}

/** The kinds our manifests may hold, each with the apiVersion Kubernetes serves it under. */
const KINDS = {
  'apps/v1 Deployment': (doc: object): Manifest => {
    const value = doc as IDeployment
    new Deployment(value).validate()
    return { kind: 'Deployment', value }
  },
  'policy/v1 PodDisruptionBudget': (doc: object): Manifest => {
    const value = doc as IPodDisruptionBudget
    new PodDisruptionBudget(value).validate()
    return { kind: 'PodDisruptionBudget', value }
  },
  'v1 Secret': (doc: object): Manifest => {
    const value = doc as ISecret
    new Secret(value).validate()
    return { kind: 'Secret', value }
  },
} as const

/** Checks one parsed document against the schema of its kind; throws a ManifestError naming the problem. */
export function validateManifest(doc: unknown, where: string): Manifest {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ManifestError(`${where}: a manifest must be a mapping, got ${JSON.stringify(doc)}`)
  }
  const { apiVersion, kind } = doc as { apiVersion?: unknown; kind?: unknown }
  const key = `${String(apiVersion)} ${String(kind)}`
  if (!Object.hasOwn(KINDS, key)) {
    throw new ManifestError(
      `${where}: unexpected apiVersion/kind '${key}'; allowed: ${Object.keys(KINDS).join(', ')}`,
    )
  }
  try {
    return KINDS[key as keyof typeof KINDS](doc)
  } catch (error) {
    throw new ManifestError(`${where} (${key}): ${(error as Error).message}`)
  }
}

/** Parses every YAML document of a file (YAML errors included) and validates each one. */
export function validateManifestText(text: string, file: string): Manifest[] {
  const docs = parseAllDocuments(text)
  return docs.map((doc, index) => {
    const where = `${file} document ${index + 1}`
    if (doc.errors.length > 0) throw new ManifestError(`${where}: YAML: ${doc.errors[0]?.message}`)
    return validateManifest(doc.toJS(), where)
  })
}

export async function loadManifests(file: string): Promise<Manifest[]> {
  return validateManifestText(await readFile(file, 'utf8'), file)
}
