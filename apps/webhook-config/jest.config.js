import { fileURLToPath } from 'node:url';
import { infrastructure, jestConfig } from '../../jest.preset.js';

export default jestConfig(fileURLToPath(new URL('.', import.meta.url)), { ...infrastructure });
