import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The `@/` imports of app/ and components/, as tsconfig.json maps them.
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
