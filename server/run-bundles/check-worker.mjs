// The bundle-check thread's entry: plain JavaScript, so that a worker can
// start it under plain node, with tsx compiling the TypeScript it imports.
import { tsImport } from 'tsx/esm/api';

await tsImport('./check-worker.ts', import.meta.url);
