import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { APP_ROOT } from './paths';

/**
 * The JavaScript a route loads, from the build's own manifests: the root
 * main files every App Router page loads (.next/build-manifest.json
 * `rootMainFiles`) plus the route's entry chunks (the `entryJSFiles` of its
 * client-reference manifest: layout, error and not-found boundaries, page).
 * Polyfills (nomodule, not loaded by current browsers) and chunks loaded
 * only on demand (dynamic imports) are not counted. Sizes gzipped at level 9
 * (as Next's own build output and `gzip-size` report them).
 */
export interface RouteJs {
  route: string;
  files: { file: string; bytes: number; gzip: number }[];
  bytes: number;
  gzip: number;
}

export function routeJs(route: string, appDir: string = APP_ROOT): RouteJs {
  const next = path.join(appDir, '.next');
  const buildManifest = JSON.parse(fs.readFileSync(path.join(next, 'build-manifest.json'), 'utf8')) as { rootMainFiles?: string[] };
  const manifestFile = path.join(next, 'server', 'app', ...route.split('/').filter(Boolean), 'page_client-reference-manifest.js');
  const source = fs.readFileSync(manifestFile, 'utf8');
  // The manifest is a script assigning globalThis.__RSC_MANIFEST[...]; evaluate it in a scratch object.
  const scope: { __RSC_MANIFEST?: Record<string, { entryJSFiles?: Record<string, string[]> }> } = {};
  new Function('globalThis', source)(scope);
  const manifests = Object.values(scope.__RSC_MANIFEST ?? {});
  const files = new Set<string>(buildManifest.rootMainFiles ?? []);
  for (const m of manifests) for (const list of Object.values(m.entryJSFiles ?? {})) for (const f of list) files.add(f);
  const sized = [...files].map((file) => {
    const content = fs.readFileSync(path.join(next, file));
    return { file, bytes: content.length, gzip: zlib.gzipSync(content, { level: 9 }).length };
  });
  return {
    route,
    files: sized,
    bytes: sized.reduce((n, f) => n + f.bytes, 0),
    gzip: sized.reduce((n, f) => n + f.gzip, 0),
  };
}
