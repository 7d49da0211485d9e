// Shared Jest settings for every project. Jest runs as native ESM:
//   node --experimental-vm-modules node_modules/jest/bin/jest.js -c <project>/jest.config.js
// @swc/jest compiles TypeScript (with Nest's legacy decorators and their metadata) to ES modules.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2023',
    keepClassNames: true,
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

/** @param {string} projectDir absolute path of the project folder */
export function jestConfig(projectDir, overrides = {}) {
  return {
    rootDir: projectDir,
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    transform: { '^.+\\.ts$': ['@swc/jest', swc] },
    moduleNameMapper: {
      '^#(domain|platform|messaging|persistence|testing)$': `${root}libs/$1/src/index.ts`,
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    // *.cluster-spec.ts: tests on a RabbitMQ cluster started for them (minutes; `-- cluster-spec` runs only those).
    testMatch: [
      '<rootDir>/**/*.spec.ts',
      '<rootDir>/**/*.medium-spec.ts',
      '<rootDir>/**/*.e2e-spec.ts',
      '<rootDir>/**/*.cluster-spec.ts',
    ],
    testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    testTimeout: 30_000,
    ...overrides,
  };
}

/** Add to a project's config when its tests need PostgreSQL and RabbitMQ: one database and vhost per run. */
export const infrastructure = {
  globalSetup: `${root}libs/testing/src/global-setup.ts`,
  globalTeardown: `${root}libs/testing/src/global-teardown.ts`,
};
