// `npm run test:e2e`: Playwright against the production build, in Debian's Chromium.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBuild, root } from './ensure-build.mjs';

const chromium = process.env.PLANSCOPE_CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromium)) {
  console.error(
    `planscope e2e: no Chromium at ${chromium}. Install Debian's: apt-get update && apt-get install -y chromium ` +
      '(or point PLANSCOPE_CHROMIUM at a Chromium binary). Playwright cannot download its own browser here.',
  );
  process.exit(1);
}
await ensureBuild();
const cli = path.join(root, 'node_modules', '@playwright', 'test', 'cli.js');
const result = spawnSync(process.execPath, [cli, 'test', ...process.argv.slice(2)], {
  cwd: root,
  env: { ...process.env, PLANSCOPE_CHROMIUM: chromium },
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
