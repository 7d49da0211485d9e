import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget, type IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';

/**
 * What a reviewer checks in deploy/kubernetes, as functions that list every problem found ([] when none): each
 * document against its Kubernetes (or KEDA) OpenAPI schema, and the platform's own rules on top.
 */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The documents of one YAML file. A syntax error, a duplicate key or a document that is not an object throws. */
export function readManifests(path: URL): KubernetesObject[] {
  return parseManifests(readFileSync(path, 'utf8'), path.pathname);
}

export function parseManifests(text: string, source = 'manifest'): KubernetesObject[] {
  return parseAllDocuments(text).map((document, index) => {
    const [error] = [...document.errors, ...document.warnings];
    if (error) throw new Error(`${source} document ${index + 1}: ${error.message}`);
    const value: unknown = document.toJS();
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`${source} document ${index + 1}: not a Kubernetes object`);
    }
    return value as KubernetesObject;
  });
}

export const nameOf = (object: KubernetesObject) => `${object.kind} ${object.metadata?.name ?? '(no name)'}`;

type Model = new (data: never) => { validate(): void };
const MODELS: Record<string, Model> = {
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/Service': Service,
  'v1/Secret': Secret,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

/** The document against the OpenAPI schema of its apiVersion and kind; a kind with no schema here is a problem. */
export function schemaProblems(object: KubernetesObject): string[] {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) return [`${nameOf(object)}: no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(object as never).validate();
    return [];
  } catch (error) {
    return [`${nameOf(object)}: ${(error as Error).message}`];
  }
}

export const deployments = (objects: KubernetesObject[]) =>
  objects.filter((object): object is KubernetesObject & IDeployment => object.kind === 'Deployment');

/** A version tag (`name:1.2.3`, `name:v1.2.3-rc.1`) or a digest; never `latest`, never untagged. */
const PINNED_IMAGE = /^[^:@\s]+(:v?\d+\.\d+\.\d+(?:[-+][\w.-]+)?|@sha256:[0-9a-f]{64})$/;

const QUANTITY = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/;
const UNITS: Record<string, number> = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};
const quantity = (value: string | number | undefined): number | undefined => {
  const match = QUANTITY.exec(String(value ?? ''));
  return match ? Number(match[1]) * (match[2] ? UNITS[match[2]] : 1) : undefined;
};

export interface ImageUser {
  uid: number;
  gid: number;
}

/** One container: pinned image, the hardened securityContext, requests and limits (a limit never below its request). */
export function containerProblems(container: IContainer, user: ImageUser): string[] {
  const problems: string[] = [];
  const where = `container ${container.name}`;
  if (!PINNED_IMAGE.test(container.image ?? '')) {
    problems.push(`${where}: image ${container.image ?? '(none)'} is not pinned to a version tag or digest`);
  }
  const context = container.securityContext ?? {};
  const expected: [string, unknown, unknown][] = [
    ['runAsNonRoot', context.runAsNonRoot, true],
    ['runAsUser', context.runAsUser, user.uid],
    ['runAsGroup', context.runAsGroup, user.gid],
    ['readOnlyRootFilesystem', context.readOnlyRootFilesystem, true],
    ['allowPrivilegeEscalation', context.allowPrivilegeEscalation, false],
    ['privileged', context.privileged ?? false, false],
    ['capabilities.drop', context.capabilities?.drop?.join(','), 'ALL'],
    ['capabilities.add', context.capabilities?.add?.join(',') ?? '', ''],
    ['seccompProfile.type', context.seccompProfile?.type, 'RuntimeDefault'],
  ];
  for (const [field, actual, wanted] of expected) {
    if (actual !== wanted) problems.push(`${where}: securityContext.${field} must be ${JSON.stringify(wanted)}`);
  }
  for (const resource of ['cpu', 'memory']) {
    const request = quantity(container.resources?.requests?.[resource]);
    const limit = quantity(container.resources?.limits?.[resource]);
    if (request === undefined) problems.push(`${where}: resources.requests.${resource} is missing`);
    if (limit === undefined) problems.push(`${where}: resources.limits.${resource} is missing`);
    if (request !== undefined && limit !== undefined && limit < request) {
      problems.push(`${where}: resources.limits.${resource} is below its request`);
    }
  }
  return problems;
}

/**
 * Every container and init container of a Deployment, and its pod: no service links (Kubernetes would set
 * TRANSACTION_API_PORT and WEBHOOK_CONFIG_PORT to `tcp://…` — the apps' port variables), no service account token.
 */
export function podProblems(deployment: IDeployment, user: ImageUser): string[] {
  const pod = deployment.spec?.template.spec;
  const where = `Deployment ${deployment.metadata?.name}`;
  if (!pod) return [`${where}: no pod template`];
  const problems = [...(pod.initContainers ?? []), ...pod.containers].flatMap((container) =>
    containerProblems(container, user).map((problem) => `${where} ${problem}`),
  );
  if (pod.enableServiceLinks !== false) problems.push(`${where}: enableServiceLinks must be false`);
  if (pod.automountServiceAccountToken !== false) problems.push(`${where}: automountServiceAccountToken must be false`);
  return problems;
}

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

/** Every Deployment has a PodDisruptionBudget whose selector matches its pods (and nothing but matchLabels). */
export function disruptionBudgetProblems(objects: KubernetesObject[]): string[] {
  const budgets = objects.filter(
    (object): object is KubernetesObject & IPodDisruptionBudget => object.kind === 'PodDisruptionBudget',
  );
  return deployments(objects)
    .filter((deployment) => {
      const labels = deployment.spec?.template.metadata?.labels;
      return !budgets.some(
        ({ spec }) => !spec?.selector?.matchExpressions?.length && selects(spec?.selector?.matchLabels, labels),
      );
    })
    .map((deployment) => `Deployment ${deployment.metadata?.name}: no PodDisruptionBudget selects its pods`);
}
