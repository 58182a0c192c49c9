// `npm start`: serve the dashboard, building first when needed, so a fresh
// clone needs only `npm ci && npm start`.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureBuild, root } from './ensure-build.mjs';

await ensureBuild();
const port = process.env.PORT || '3000';
const hostname = process.env.HOSTNAME || '127.0.0.1';
const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
const server = spawn(process.execPath, [nextBin, 'start', '-p', port, '-H', hostname], {
  cwd: root,
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
