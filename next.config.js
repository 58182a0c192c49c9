/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Loaded from node_modules, not bundled: the run queue's graphile-worker imports task files by path at run time, and
  // node-llama-cpp finds its prebuilt llama.cpp binary (@node-llama-cpp/<platform>) next to itself.
  serverExternalPackages: ['graphile-worker', 'node-llama-cpp'],
  experimental: {
    // The proxy (proxy.ts) buffers a request's body up to this size and silently cuts the rest: it must hold the
    // largest run bundle PLANSCOPE_MAX_BUNDLE_BYTES may allow (64 MiB), so that the import's own limit refuses it, with its code.
    proxyClientMaxBodySize: 64 * 1024 * 1024 + 1,
  },
};

export default nextConfig;
