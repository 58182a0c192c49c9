/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Loaded from node_modules, not bundled: the run queue's graphile-worker imports task files by path at run time, and
  // node-llama-cpp finds its prebuilt llama.cpp binary (@node-llama-cpp/<platform>) next to itself.
  serverExternalPackages: ['graphile-worker', 'node-llama-cpp'],
  // The build `npm start` and the browser tests make when there is none (scripts/ensure-build.mjs) skips Next.js's
  // type check, which the first start of a fresh clone waited for and which changes nothing of what is built:
  // `npm run typecheck` (and `npm test`) check the types. `npm run build` itself still checks them.
  typescript: { ignoreBuildErrors: process.env.PLANSCOPE_BUILD_SKIP_TYPECHECK === '1' },
  experimental: {
    // Turbopack's cache of a build (about 130 MB in .next/cache, written after the pages, 55 s of an 8-minute build at
    // load 25 here) only speeds up a later build. A fresh clone's first `npm start` has nothing to gain from it yet, so
    // that build writes none (scripts/ensure-build.mjs); a rebuild after a source change writes it for the next one.
    turbopackFileSystemCacheForBuild: process.env.PLANSCOPE_BUILD_CACHE !== 'off',
    // Next buffers the body of every request the proxy (proxy.ts) sees, up to this size, and waits for all of it
    // before the proxy's answer goes out, a 401 too; beyond the size it silently cuts the body. The largest body a
    // proxied route takes is a server action's (1 MiB, Next's default), one byte more lets that limit refuse it with
    // its own error. The bundle import (up to 64 MiB) is not proxied: its route runs the gate itself, before reading.
    proxyClientMaxBodySize: 1024 * 1024 + 1,
  },
};

export default nextConfig;
