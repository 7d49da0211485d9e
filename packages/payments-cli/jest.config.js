import { fileURLToPath } from 'node:url';
import { jestConfig } from '../../jest.preset.js';

// The tests run payments.js as a real process against a WebSocket server and a local receiver written in them.
export default jestConfig(fileURLToPath(new URL('.', import.meta.url)));
