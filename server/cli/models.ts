import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ExitCode } from '../../lib/codes';
import { listEmbeddedModels } from '../llm/embedded/catalog';
import { commandConfig } from './command-config';

/**
 * `npm run models:pull -- <url> [more urls]`: downloads GGUF files into the
 * models folder (PLANSCOPE_MODELS_DIR, default `<PLANSCOPE_DATA_DIR>/models`)
 * with node-llama-cpp's own `pull` (a progress bar, resumed downloads,
 * `hf:<user>/<repo>/<file>` and `https://` URLs), then lists the folder as
 * the embedded engine sees it. Without a URL it only lists. Needs internet
 * access; nothing else in planscope downloads anything.
 */

function fail(reason: string): never {
  process.stderr.write(`planscope models: ${reason}\n`);
  process.exit(ExitCode.usage);
}

async function main(): Promise<void> {
  const config = commandConfig(fail);
  const dir = config.embedded.modelsDir;
  const urls = process.argv.slice(2);
  if (urls.length > 0) {
    // node-llama-cpp's CLI, as its package ships it: the same code `npx node-llama-cpp pull` runs.
    const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('node-llama-cpp/package.json')), 'dist/cli/cli.js');
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [cli, 'pull', '--dir', dir, ...urls], { stdio: 'inherit' });
      child.on('exit', (status) => resolve(status ?? ExitCode.failed));
      child.on('error', () => resolve(ExitCode.failed));
    });
    if (code !== 0) process.exit(ExitCode.failed);
  }
  const models = await listEmbeddedModels(dir);
  process.stdout.write(`${dir}: ${models.length} ${models.length === 1 ? 'model' : 'models'}\n`);
  for (const m of models) {
    const facts = [`${(m.sizeBytes / 1e6).toFixed(0)} MB`, m.quantization ?? 'quantization not stated', `context ${m.contextLength ?? '?'}`, m.chatTemplate === null ? 'no chat template (a base model?)' : 'chat template'];
    process.stdout.write(`  ${m.name}  (${facts.join(', ')})\n`);
  }
}

void main();
