import { defineConfig } from '@playwright/test';

/** Fixed loopback ports for the e2e servers; override when they clash with something on the machine. */
export const FAKE_OLLAMA_PORT = Number(process.env.E2E_FAKE_OLLAMA_PORT ?? 11555);
export const APP_PORT = Number(process.env.E2E_APP_PORT ?? 3210);
const DATA_DIR = '.e2e-data';

export default defineConfig({
  testDir: 'e2e',
  // `*.docs.ts` make the pictures under docs/ (npm run docs:screenshots); they are not tests of the suite.
  testMatch: process.env.PLANSCOPE_DOC_SCREENSHOTS ? '**/*.docs.ts' : '**/*.spec.ts',
  // One dashboard and one scripted fake Ollama are shared by the tests: run them one at a time.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  outputDir: 'test-results/e2e',
  use: {
    baseURL: `http://127.0.0.1:${APP_PORT}`,
    screenshot: 'on',
    trace: 'retain-on-failure',
    viewport: { width: 1280, height: 900 },
    launchOptions: {
      executablePath: process.env.PLANSCOPE_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  webServer: [
    {
      command: `node_modules/.bin/tsx test/support/fake-ollama-main.ts --port ${FAKE_OLLAMA_PORT}`,
      url: `http://127.0.0.1:${FAKE_OLLAMA_PORT}/api/version`,
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      command: `rm -rf ${DATA_DIR} && node node_modules/next/dist/bin/next start -p ${APP_PORT} -H 127.0.0.1`,
      url: `http://127.0.0.1:${APP_PORT}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        NEXT_TELEMETRY_DISABLED: '1',
        OLLAMA_HOST: `http://127.0.0.1:${FAKE_OLLAMA_PORT}`,
        PLANSCOPE_MODEL: 'qwen3:8b',
        PLANSCOPE_DATA_DIR: DATA_DIR,
      },
    },
  ],
});
