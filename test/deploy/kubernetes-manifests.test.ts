// The Kubernetes manifests under deploy/kubernetes: schema-valid for their kinds, and true to what the
// images and the agent expect (probes, drain vs grace period, non-root, capabilities, secrets).

import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment'
import type { IContainer } from 'kubernetes-models/v1/Container'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadAgentConfig } from '../../src/config/agent-config.ts'
import { loadManifests, type Manifest, ManifestError, validateManifestText } from './kubernetes-schema.ts'

const root = join(import.meta.dirname, '../..')
const dir = join(root, 'deploy/kubernetes')

const FLAVORS = [
  { flavor: 'full', file: 'outpost-agent.yaml', image: 'outpost-agent', dockerfile: 'Dockerfile' },
  {
    flavor: 'uptime',
    file: 'outpost-agent-uptime.yaml',
    image: 'outpost-agent-uptime',
    dockerfile: 'Dockerfile.uptime',
  },
] as const

let version: string
beforeAll(async () => {
  version = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string }).version
})

type ManifestOf<K extends Manifest['kind']> = Extract<Manifest, { kind: K }>

function only<K extends Manifest['kind']>(manifests: Manifest[], kind: K): ManifestOf<K>['value'] {
  const found = manifests.filter((m): m is ManifestOf<K> => m.kind === kind)
  expect(found, `exactly one ${kind}`).toHaveLength(1)
  const [first] = found
  if (first === undefined) throw new Error(`no ${kind}`)
  return first.value as ManifestOf<K>['value']
}

function agentContainer(deployment: IDeployment): IContainer {
  const containers = deployment.spec?.template.spec?.containers ?? []
  expect(containers).toHaveLength(1)
  return containers[0]!
}

/** Memory quantity in bytes (Mi/Gi only, which is what our manifests use). */
function bytes(quantity: string | number | undefined): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(String(quantity))
  if (!match) throw new Error(`unexpected memory quantity ${quantity}`)
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 ** 3 : 1024 ** 2)
}

describe('schema check', () => {
  it('validates every manifest file under deploy/kubernetes', async () => {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml'))
    expect(files.sort()).toEqual(['outpost-agent-uptime.yaml', 'outpost-agent.yaml', 'secret.example.yaml'])
    for (const file of files) {
      const manifests = await loadManifests(join(dir, file))
      expect(manifests.length).toBeGreaterThan(0)
    }
  })

  it('rejects a value of the wrong type, naming where it is', async () => {
    const text = (await readFile(join(dir, 'outpost-agent.yaml'), 'utf8')).replace(
      'containerPort: 8081',
      'containerPort: health-port',
    )
    expect(() => validateManifestText(text, 'broken.yaml')).toThrow(
      /broken\.yaml document 1 \(apps\/v1 Deployment\):.*containers\/0\/ports\/0\/containerPort must be integer/,
    )
  })

  it('rejects a Deployment without its required selector', () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: { name: x }
spec:
  template:
    metadata: { labels: { a: b } }
    spec: { containers: [{ name: c, image: i }] }
`
    expect(() => validateManifestText(text, 'x.yaml')).toThrow(/selector/)
  })

  it('rejects a probe handler of the wrong shape and an unknown kind', () => {
    const probe = `apiVersion: apps/v1
kind: Deployment
metadata: { name: x }
spec:
  selector: { matchLabels: { a: b } }
  template:
    metadata: { labels: { a: b } }
    spec: { containers: [{ name: c, image: i, readinessProbe: { httpGet: { path: /-/readiness } } }] }
`
    expect(() => validateManifestText(probe, 'probe.yaml')).toThrow(/httpGet.*port/)
    expect(() =>
      validateManifestText('apiVersion: v1\nkind: Pod\nmetadata: { name: p }\n', 'pod.yaml'),
    ).toThrow(ManifestError)
    expect(() => validateManifestText('kind: [unclosed\n', 'bad.yaml')).toThrow(/YAML/)
  })
})

describe.each(FLAVORS)('$flavor agent manifest', ({ flavor, file, image, dockerfile }) => {
  let manifests: Manifest[]
  let deployment: IDeployment
  let container: IContainer
  let env: Record<string, string>
  beforeAll(async () => {
    manifests = await loadManifests(join(dir, file))
    deployment = only(manifests, 'Deployment')
    container = agentContainer(deployment)
    env = Object.fromEntries(
      (container.env ?? []).map((e) => [e.name, e.value ?? (e.valueFrom ? 'from-a-secret' : '')]),
    )
  })

  it('runs the image of this version and flavor, with an environment the agent accepts', () => {
    expect(container.image).toBe(`${image}:${version}`)
    expect(deployment.metadata?.labels?.['app.kubernetes.io/version']).toBe(version)
    const config = loadAgentConfig(env, '/app')
    expect(config.flavor).toBe(flavor)
    expect(config.dataDir).toBe('/var/lib/outpost')
    expect(config.serviceApiUrl).toBeDefined()
  })

  it('probes readiness and liveness on the health port 8081', () => {
    const health = container.ports?.find((p) => p.name === 'health')
    expect(health?.containerPort).toBe(8081)
    expect(container.ports?.find((p) => p.name === 'heartbeat')?.containerPort).toBe(8082)
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/-/readiness', port: 'health' })
    expect(container.livenessProbe?.httpGet).toMatchObject({ path: '/-/liveness', port: 'health' })
    expect(container.startupProbe?.httpGet).toMatchObject({ path: '/-/liveness', port: 'health' })
    expect(loadAgentConfig(env, '/app').healthPort).toBe(8081)
  })

  it('gives the drain more time than AGENT_DRAIN_TIMEOUT before the kubelet kills the pod', () => {
    const drain = loadAgentConfig(env, '/app').drainTimeoutSeconds
    const grace = deployment.spec?.template.spec?.terminationGracePeriodSeconds
    expect(env.AGENT_DRAIN_TIMEOUT).toBe('120')
    expect(grace).toBeGreaterThan(drain)
  })

  it('runs as the image user 10001, non-root, read-only, with NET_RAW as the only capability', async () => {
    const pod = deployment.spec?.template.spec?.securityContext
    expect(pod).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001 })
    expect(await readFile(join(root, dockerfile), 'utf8')).toMatch(/^USER 10001:10001$/m)
    expect(container.securityContext).toMatchObject({
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'], add: ['NET_RAW'] },
    })
    expect(deployment.spec?.template.spec?.automountServiceAccountToken).toBe(false)
  })

  it('mounts writable volumes where a read-only root needs them', () => {
    const mounts = container.volumeMounts ?? []
    const volumes = new Set((deployment.spec?.template.spec?.volumes ?? []).map((v) => v.name))
    for (const m of mounts) expect(volumes, `volume for ${m.mountPath}`).toContain(m.name)
    const paths = mounts.map((m) => m.mountPath)
    expect(paths).toContain('/tmp')
    expect(paths).toContain(env.AGENT_DATA_DIR)
  })

  it('takes the API key from a Secret, and no secret value is written in the manifest', async () => {
    const apiKey = container.env?.find((e) => e.name === 'API_KEY')
    expect(apiKey?.value).toBeUndefined()
    expect(apiKey?.valueFrom?.secretKeyRef).toEqual({ name: 'outpost-agent', key: 'API_KEY' })
    for (const e of container.env ?? []) {
      if (e.name === 'API_KEY' || e.name.startsWith('SERVICE_SECRET_')) expect(e.value).toBeUndefined()
    }
    const secret = only(await loadManifests(join(dir, 'secret.example.yaml')), 'Secret')
    expect(secret.metadata?.name).toBe('outpost-agent')
    expect(Object.keys(secret.stringData ?? {})).toEqual(['API_KEY'])
  })

  it('has a PodDisruptionBudget selecting its pods', () => {
    const pdb = only(manifests, 'PodDisruptionBudget')
    const podLabels = deployment.spec?.template.metadata?.labels ?? {}
    const selector = pdb.spec?.selector?.matchLabels ?? {}
    expect(Object.keys(selector).length).toBeGreaterThan(0)
    for (const [key, value] of Object.entries(selector)) expect(podLabels[key]).toBe(value)
    expect(deployment.spec?.selector.matchLabels).toEqual(selector)
    expect(pdb.spec?.maxUnavailable ?? pdb.spec?.minAvailable).toBeDefined()
  })
})

describe('resources per flavor', () => {
  it('sets requests and limits, and gives the full agent (a browser) more than the uptime agent', async () => {
    const [full, uptime] = await Promise.all(
      FLAVORS.map(async ({ file }) =>
        agentContainer(only(await loadManifests(join(dir, file)), 'Deployment')),
      ),
    )
    for (const c of [full!, uptime!]) {
      expect(c.resources?.requests).toHaveProperty('cpu')
      expect(c.resources?.limits).toHaveProperty('cpu')
      expect(bytes(c.resources?.requests?.memory)).toBeLessThanOrEqual(bytes(c.resources?.limits?.memory))
    }
    expect(bytes(full!.resources?.requests?.memory)).toBeGreaterThan(
      bytes(uptime!.resources?.requests?.memory),
    )
    expect(bytes(full!.resources?.limits?.memory)).toBeGreaterThanOrEqual(1024 ** 3)
  })
})
