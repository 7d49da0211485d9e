import { fileURLToPath } from 'node:url';
import { jestConfig } from '../../jest.preset.js';

export default jestConfig(fileURLToPath(new URL('.', import.meta.url)), {
  collectCoverageFrom: ['src/**/*.ts', '!src/**/*.spec.ts', '!src/index.ts'],
  coverageThreshold: { global: { branches: 95, lines: 95, functions: 95, statements: 95 } },
});
