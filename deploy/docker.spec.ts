import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { parse } from 'yaml';
import { splitAmqpUrls } from '#messaging';
import { APP_NODE_FLAGS } from '../scripts/node-flags.js';
import { numericUser, parseDockerfile, readDockerfile } from './dockerfile.reader.js';

const root = new URL('../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const APPS = { 'transaction-api': 3000, 'webhook-config': 3001, 'webhook-dispatcher': 3002 };
const portVariable = (app: string) => `${app.toUpperCase().replaceAll('-', '_')}_PORT`;

describe('Dockerfile', () => {
  const instructions = readDockerfile();
  const args = (keyword: string) => instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

  it("builds on the Node version of package.json's node devDependency, the same base in every stage", () => {
    const node = JSON.parse(read('package.json')).devDependencies.node.replace(/^\^/, '');
    expect(args('ARG')).toContain(`NODE_IMAGE=node:${node}-bookworm-slim`);
    expect(args('FROM')).toEqual(['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS runtime']);
  });

  it('runs as a numeric non-root user', () => {
    expect(numericUser(instructions)?.uid).toBeGreaterThan(0);
    expect(numericUser(parseDockerfile('FROM x\nUSER node\n'))).toBeUndefined();
  });

  it("checks the liveness of whichever app runs, on that app's port variable", () => {
    const [healthcheck] = args('HEALTHCHECK');
    const command = JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD') + 3));
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(() => new Script(command[2])).not.toThrow();
    expect(command[2]).toContain("'/health/live'");
    for (const [app, port] of Object.entries(APPS)) {
      expect(command[2]).toContain(`['${app}', '${portVariable(app)}', ${port}]`);
    }
    expect(healthcheck).toMatch(/--start-period=5m/);
  });

  it('starts transaction-api with the node flags by default', () => {
    expect(JSON.parse(args('CMD').at(-1)!)).toEqual([
      'node',
      ...APP_NODE_FLAGS,
      'dist/apps/transaction-api/src/main.js',
    ]);
  });
});

interface ComposeService {
  image?: string;
  hostname?: string;
  volumes?: string[];
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
}
const compose = (file: string) => parse(read(file), { merge: true }) as { services: Record<string, ComposeService> };

describe('docker-compose.yml', () => {
  const { services } = compose('docker-compose.yml');

  it('runs the apps in production with no fallback for a secret: unset, they refuse to start', () => {
    for (const app of Object.keys(APPS)) {
      expect(services[app].environment).toEqual(
        expect.objectContaining({
          NODE_ENV: 'production',
          PLATFORM_TOKEN: '${PLATFORM_TOKEN:-}',
          SECRET_ENCRYPTION_KEY: '${SECRET_ENCRYPTION_KEY:-}',
        }),
      );
    }
  });

  it('starts each app with the node flags, its port variable and a readiness healthcheck', () => {
    for (const [app, port] of Object.entries(APPS)) {
      expect(services[app].command).toEqual(['node', ...APP_NODE_FLAGS, `dist/apps/${app}/src/main.js`]);
      expect(services[app].environment?.[portVariable(app)]).toBe(String(port));
      expect(services[app].ports).toEqual([`${port}:${port}`]);
      expect(services[app].healthcheck?.test?.join(' ')).toContain('/health/ready');
    }
    expect(services.migrate.healthcheck).toEqual({ disable: true });
  });

  it('publishes the management UI on this machine only', () => {
    expect(services.rabbitmq.ports).toEqual(['127.0.0.1:15672:15672']);
    expect(services.postgres.ports).toBeUndefined();
  });

  it('gives the broker every shipped RabbitMQ setting (deploy/rabbitmq/*.conf)', () => {
    expect(services.rabbitmq.volumes).toEqual(expect.arrayContaining(SHIPPED_BROKER_SETTINGS.map(settingsMount)));
  });
});

/** deploy/rabbitmq/*.conf: what every broker of the platform runs with. */
const SHIPPED_BROKER_SETTINGS = readdirSync(new URL('deploy/rabbitmq/', root))
  .filter((file) => file.endsWith('.conf'))
  .sort();
const settingsMount = (file: string) => `./deploy/rabbitmq/${file}:/etc/rabbitmq/conf.d/${file}:ro`;

describe('docker-compose.cluster.yml (RabbitMQ as a cluster of three nodes)', () => {
  const merged = parse(
    // Compose merges the files; here the cluster file's services over the base file's, as far as the rules need.
    read('docker-compose.cluster.yml'),
    { merge: true },
  ) as { services: Record<string, ComposeService & { depends_on?: Record<string, unknown> }> };
  const { services } = merged;
  const NODES = ['rabbitmq', 'rabbitmq-2', 'rabbitmq-3'];
  const peerDiscovery = read('deploy/rabbitmq/compose-cluster/40-peer-discovery.conf');

  it('runs three nodes, each with every shipped setting, the peer discovery file and a data volume of its own', () => {
    const data = new Set<string>();
    for (const node of NODES) {
      expect(services[node].hostname).toBe(node);
      expect(services[node].volumes).toEqual(
        expect.arrayContaining([
          ...SHIPPED_BROKER_SETTINGS.map(settingsMount),
          './deploy/rabbitmq/compose-cluster/40-peer-discovery.conf:/etc/rabbitmq/conf.d/40-peer-discovery.conf:ro',
        ]),
      );
      data.add(services[node].volumes!.find((volume) => volume.endsWith(':/var/lib/rabbitmq'))!);
    }
    expect(data.size).toBe(3);
    expect(services['rabbitmq-2'].image).toBe(compose('docker-compose.yml').services.rabbitmq.image);
  });

  it('lets the nodes find each other: one cookie, and each node named in the peer discovery file', () => {
    const cookies = new Set(NODES.map((node) => services[node].environment?.RABBITMQ_ERLANG_COOKIE));
    expect(cookies.size).toBe(1);
    expect([...cookies][0]).toBeTruthy();
    const listed = [...peerDiscovery.matchAll(/^cluster_formation\.classic_config\.nodes\.\d+ = rabbit@(\S+)$/gm)];
    expect(listed.map((match) => match[1]).sort()).toEqual(NODES);
    expect(peerDiscovery).toMatch(/^cluster_formation\.peer_discovery_backend = classic_config$/m);
  });

  it("points every app's AMQP_URL at the three nodes (one vhost) and starts it once they are healthy", () => {
    for (const app of Object.keys(APPS)) {
      const urls = splitAmqpUrls(services[app].environment!.AMQP_URL).map((url) => new URL(url));
      expect(urls.map((url) => url.hostname).sort()).toEqual(NODES);
      expect(new Set(urls.map((url) => url.pathname)).size).toBe(1);
      expect(Object.keys(services[app].depends_on ?? {})).toEqual(expect.arrayContaining(['rabbitmq-2', 'rabbitmq-3']));
    }
  });
});

describe('kubernetes/optional/rabbitmq-cluster.yaml (the RabbitMQ cluster operator)', () => {
  const cluster = parse(read('deploy/kubernetes/optional/rabbitmq-cluster.yaml')) as {
    kind: string;
    spec: { replicas: number; rabbitmq: { additionalConfig: string } };
  };
  const settings = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));

  it('runs three nodes with exactly the shipped settings', () => {
    expect(cluster.kind).toBe('RabbitmqCluster');
    expect(cluster.spec.replicas).toBe(3);
    expect(settings(cluster.spec.rabbitmq.additionalConfig).sort()).toEqual(
      SHIPPED_BROKER_SETTINGS.flatMap((file) => settings(read(`deploy/rabbitmq/${file}`))).sort(),
    );
  });
});

describe('docker-compose.dev.yml', () => {
  const { services } = compose('docker-compose.dev.yml');

  it("switches every app to development with empty secrets, so that the apps' development defaults apply", () => {
    for (const app of Object.keys(APPS)) {
      expect(services[app].environment).toEqual({
        NODE_ENV: 'development',
        PLATFORM_TOKEN: '',
        SECRET_ENCRYPTION_KEY: '',
      });
    }
  });

  it('publishes PostgreSQL and RabbitMQ on 127.0.0.1 only', () => {
    expect(services.postgres.ports).toEqual(['127.0.0.1:5432:5432']);
    expect(services.rabbitmq.ports).toEqual(['127.0.0.1:5672:5672']);
  });
});
