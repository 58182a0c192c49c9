/**
 * Runs the fake Ollama as its own process, for e2e and CLI tests:
 *
 *   tsx test/support/fake-ollama-main.ts --port 11499 --script test/fixtures/script.json
 *
 * Prints `fake-ollama listening on http://127.0.0.1:<port>` once it accepts
 * connections (wait for that line before pointing anything at it), and exits
 * on SIGTERM/SIGINT. `--port 0` (the default) picks a free port.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseFakeScript, startFakeOllama, type FakeScript } from './fake-ollama';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, script: { type: 'string' } },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be 0-65535, got "${values.port}"`);
  }
  const script: FakeScript = values.script ? parseFakeScript(JSON.parse(await readFile(values.script, 'utf8'))) : {};

  const fake = await startFakeOllama(script, { port });
  process.stdout.write(`fake-ollama listening on ${fake.url}\n`);

  const stop = (): void => {
    fake.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`fake-ollama: close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`fake-ollama: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
