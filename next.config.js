/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Loaded from node_modules, not bundled: the run queue's graphile-worker imports task files by path at run time, and
  // node-llama-cpp finds its prebuilt llama.cpp binary (@node-llama-cpp/<platform>) next to itself.
  serverExternalPackages: ['graphile-worker', 'node-llama-cpp'],
  experimental: {
    // Next buffers the body of every request the proxy (proxy.ts) sees, up to this size, and waits for all of it
    // before the proxy's answer goes out, a 401 too; beyond the size it silently cuts the body. The largest body a
    // proxied route takes is a server action's (1 MiB, Next's default), one byte more lets that limit refuse it with
    // its own error. The bundle import (up to 64 MiB) is not proxied: its route runs the gate itself, before reading.
    proxyClientMaxBodySize: 1024 * 1024 + 1,
  },
};

export default nextConfig;
