import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { parse } from 'yaml';
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
