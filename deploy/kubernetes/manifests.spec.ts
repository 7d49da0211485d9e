import { describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { ITriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import { QUEUES } from '#messaging';
import { APP_NODE_FLAGS } from '../../scripts/node-flags.js';
import { numericUser, readDockerfile } from '../dockerfile.reader.js';
import {
  containerProblems,
  deployments,
  disruptionBudgetProblems,
  type KubernetesObject,
  parseManifests,
  podProblems,
  readManifests,
  schemaProblems,
} from './manifests.policy.js';

const here = (file: string) => new URL(file, import.meta.url);
const kustomization = readManifests(here('kustomization.yaml'))[0] as unknown as {
  resources: string[];
  images: { name: string; newName?: string; newTag?: string; digest?: string }[];
};
/** What `kubectl apply -k` applies. */
const applied = kustomization.resources.flatMap((file) => readManifests(here(file)));
/** Applied once by hand, never by a release. */
const secrets = readManifests(here('secrets.template.yaml'));
const all = [...applied, ...secrets];

const imageUser = numericUser(readDockerfile());
const user = imageUser ?? { uid: -1, gid: -1 };
const APPS = ['transaction-api', 'webhook-config', 'webhook-dispatcher'];
const MIGRATE = ['node', 'dist/libs/persistence/src/migrate.main.js'];

const appDeployment = (name: string, objects = applied) =>
  deployments(objects).find((deployment) => deployment.metadata?.name === name);
const ofKind = <T>(kind: string, objects = all) => objects.filter((object) => object.kind === kind) as unknown as T[];
const copy = <T>(value: T): T => structuredClone(value);

describe('deploy/kubernetes', () => {
  it('applies every manifest file but the Secret template through kustomization.yaml', () => {
    const files = readdirSync(here('.')).filter((file) => /\.ya?ml$/.test(file));
    expect([...kustomization.resources].sort()).toEqual(
      files.filter((file) => !['kustomization.yaml', 'secrets.template.yaml'].includes(file)).sort(),
    );
  });

  it('every document validates against the Kubernetes and KEDA schemas', () => {
    expect(all.length).toBeGreaterThan(0);
    expect(all.flatMap(schemaProblems)).toEqual([]);
  });

  it('a broken document fails the schema validation', () => {
    const deployment = copy(appDeployment('transaction-api'))!;
    deployment.spec!.replicas = 'two' as never;
    delete (deployment.spec!.template.spec!.containers[0] as Partial<IContainer>).name;
    const [problem] = schemaProblems(deployment as KubernetesObject);
    expect(problem).toContain('Deployment transaction-api');
    expect(problem).toContain('data/spec/replicas must be integer');
    expect(problem).toContain('must have required property name');

    const scaledObject = copy(ofKind<IScaledObject & KubernetesObject>('ScaledObject')[0]);
    scaledObject.spec.triggers[0].metadata.value = 500 as never;
    expect(schemaProblems(scaledObject)).toEqual([
      expect.stringContaining('data/spec/triggers/0/metadata/value must be string'),
    ]);
    expect(schemaProblems({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'x' } })).toEqual([
      'CronJob x: no schema for batch/v1 CronJob',
    ]);
    expect(() => parseManifests('kind: Service\nkind: Secret\n')).toThrow(/document 1/);
  });

  it('runs the image as its numeric non-root user', () => {
    expect(imageUser).toBeDefined();
    expect(imageUser!.uid).toBeGreaterThan(0);
  });

  it('every container runs pinned, hardened and with requests and limits, in a pod without service links', () => {
    expect(deployments(applied).map((deployment) => deployment.metadata?.name)).toEqual(APPS);
    expect(deployments(applied).flatMap((deployment) => podProblems(deployment, user))).toEqual([]);
  });

  it('a container that runs as root, writes its filesystem, floats on :latest or has no limits is refused', () => {
    const container = copy(appDeployment('webhook-config')!.spec!.template.spec!.containers[0]);
    expect(containerProblems(container, user)).toEqual([]);
    container.image = 'payments-platform:latest';
    container.securityContext = { ...container.securityContext, runAsUser: 0, readOnlyRootFilesystem: false };
    delete container.resources!.limits;
    expect(containerProblems(container, user)).toEqual([
      'container webhook-config: image payments-platform:latest is not pinned to a version tag or digest',
      'container webhook-config: securityContext.runAsUser must be 1000',
      'container webhook-config: securityContext.readOnlyRootFilesystem must be true',
      'container webhook-config: resources.limits.cpu is missing',
      'container webhook-config: resources.limits.memory is missing',
    ]);
    container.image = 'payments-platform';
    container.resources!.limits = { cpu: '50m', memory: '1Gi' };
    expect(containerProblems(container, user)).toEqual(
      expect.arrayContaining([
        'container webhook-config: image payments-platform is not pinned to a version tag or digest',
        'container webhook-config: resources.limits.cpu is below its request',
      ]),
    );
    const pod = copy(appDeployment('webhook-config')!);
    delete pod.spec!.template.spec!.enableServiceLinks;
    expect(podProblems(pod, user)).toEqual(['Deployment webhook-config: enableServiceLinks must be false']);
  });

  it('a release sets the image of every container through kustomize images', () => {
    const names = new Set(
      deployments(applied).flatMap(({ spec }) =>
        [...(spec!.template.spec!.initContainers ?? []), ...spec!.template.spec!.containers].map(
          (container) => container.image!.split(/[:@]/)[0],
        ),
      ),
    );
    expect([...names]).toEqual(['payments-platform']);
    expect(kustomization.images).toEqual([expect.objectContaining({ name: 'payments-platform' })]);
    const [image] = kustomization.images;
    expect(image.newTag ?? image.digest).toMatch(/^(v?\d+\.\d+\.\d+|sha256:[0-9a-f]{64})/);
  });

  it('every app Deployment has a PodDisruptionBudget selecting its pods', () => {
    expect(disruptionBudgetProblems(applied)).toEqual([]);
    const withoutDispatcherBudget = applied.filter(
      (object) => !(object.kind === 'PodDisruptionBudget' && object.metadata?.name === 'webhook-dispatcher'),
    );
    expect(disruptionBudgetProblems(withoutDispatcherBudget)).toEqual([
      'Deployment webhook-dispatcher: no PodDisruptionBudget selects its pods',
    ]);
  });

  describe.each(APPS)('%s', (app) => {
    const deployment = appDeployment(app)!;
    const pod = deployment.spec!.template.spec!;
    const [container] = pod.containers;
    const port = container.ports![0].containerPort;

    it('runs the migrate CLI from its own image before it starts', () => {
      expect(pod.initContainers?.map(({ image, command }) => ({ image, command }))).toEqual([
        { image: container.image, command: MIGRATE },
      ]);
    });

    it('starts with the node flags of scripts/node-flags.js, on the port its probes and port variable name', () => {
      expect(container.command).toEqual(['node', ...APP_NODE_FLAGS, `dist/apps/${app}/src/main.js`]);
      const portVariable = `${app.toUpperCase().replaceAll('-', '_')}_PORT`;
      expect(container.env).toContainEqual({ name: portVariable, value: String(port) });
      expect(container.startupProbe?.httpGet).toEqual({ path: '/health/live', port });
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/live', port });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port });
      for (const service of ofKind<IService>('Service').filter((s) => s.metadata?.name === app)) {
        expect(service.spec?.ports?.map((p) => p.targetPort)).toEqual([port]);
      }
    });
  });

  it('the HTTP apps stop receiving traffic before they shut down; dispatchers get time to finish attempts', () => {
    for (const app of ['transaction-api', 'webhook-config']) {
      expect(appDeployment(app)!.spec!.template.spec!.containers[0].lifecycle?.preStop).toBeDefined();
    }
    expect(appDeployment('webhook-dispatcher')!.spec!.template.spec!.terminationGracePeriodSeconds).toBeGreaterThan(20);
  });

  describe('the dispatcher autoscaling', () => {
    const [scaledObject] = ofKind<IScaledObject>('ScaledObject', applied);
    const { spec } = scaledObject;

    it('scales the webhook-dispatcher Deployment, which leaves the replica count to it', () => {
      expect(spec.scaleTargetRef).toEqual(expect.objectContaining({ kind: 'Deployment', name: 'webhook-dispatcher' }));
      const target: IDeployment = appDeployment(spec.scaleTargetRef.name)!;
      expect(target.spec?.replicas).toBeUndefined();
      expect(spec.minReplicaCount).toBeGreaterThanOrEqual(2);
      expect(spec.maxReplicaCount).toBeGreaterThan(spec.minReplicaCount!);
    });

    it("triggers on the depth of the dispatcher's two work queues in the vhost of AMQP_URL", () => {
      expect(spec.triggers.map((trigger) => trigger.metadata.queueName).sort()).toEqual(
        [QUEUES.dispatcherEvents, QUEUES.deliveries].sort(),
      );
      const [appSecret] = ofKind<ISecret>('Secret').filter((secret) => secret.metadata?.name === 'payments-secrets');
      const vhost = decodeURIComponent(new URL(appSecret.stringData!.AMQP_URL).pathname.slice(1)) || '/';
      for (const trigger of spec.triggers) {
        expect(trigger).toEqual(
          expect.objectContaining({
            type: 'rabbitmq',
            metadata: expect.objectContaining({ protocol: 'amqp', mode: 'QueueLength', vhostName: vhost }),
          }),
        );
        expect(Number(trigger.metadata.value)).toBeGreaterThan(0);
      }
    });

    it('authenticates with a TriggerAuthentication reading the broker URL from a Secret of the template', () => {
      const names = new Set(spec.triggers.map((trigger) => trigger.authenticationRef?.name));
      expect(names.size).toBe(1);
      const authentication = ofKind<ITriggerAuthentication>('TriggerAuthentication', applied).find(
        (candidate) => candidate.metadata?.name === [...names][0],
      );
      const [hostRef] = authentication?.spec?.secretTargetRef ?? [];
      expect(hostRef?.parameter).toBe('host');
      const secret = ofKind<ISecret>('Secret', secrets).find((candidate) => candidate.metadata?.name === hostRef.name);
      expect(new URL(secret!.stringData![hostRef.key]).protocol).toMatch(/^amqps?:$/);
    });
  });

  it('the Secret template holds obvious placeholders only, and every key the apps read', () => {
    const values = ofKind<ISecret>('Secret', secrets).flatMap((secret) => Object.values(secret.stringData ?? {}));
    expect(values.length).toBeGreaterThan(0);
    expect(values.filter((value) => !value.includes('CHANGE_ME'))).toEqual([]);
    expect(ofKind('Secret', applied)).toEqual([]);

    const keys = new Set(ofKind<ISecret>('Secret', secrets).flatMap((s) => Object.keys(s.stringData ?? {})));
    const referenced = deployments(applied).flatMap(({ spec }) =>
      [...(spec!.template.spec!.initContainers ?? []), ...spec!.template.spec!.containers].flatMap(
        (container) => container.env?.flatMap(({ valueFrom }) => valueFrom?.secretKeyRef?.key ?? []) ?? [],
      ),
    );
    expect(referenced.filter((key) => !keys.has(key))).toEqual([]);
    expect([...keys]).toEqual(expect.arrayContaining(['DATABASE_URL', 'AMQP_URL', 'PLATFORM_TOKEN']));
  });
});
