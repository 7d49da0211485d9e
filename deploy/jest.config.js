// Offline checks of the deploy files: the Kubernetes manifests against their schemas and the platform's rules,
// the Dockerfile and the compose files. No database or broker.
import { fileURLToPath } from 'node:url';
import { jestConfig } from '../jest.preset.js';

export default jestConfig(fileURLToPath(new URL('.', import.meta.url)), { testMatch: ['<rootDir>/**/*.spec.ts'] });
