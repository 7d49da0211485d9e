import { fileURLToPath } from 'node:url';
import { jestConfig } from '../../jest.preset.js';

export default jestConfig(fileURLToPath(new URL('.', import.meta.url)));
