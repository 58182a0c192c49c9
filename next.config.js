/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The run queue's graphile-worker imports task files by path at run time: loaded from node_modules, not bundled.
  serverExternalPackages: ['graphile-worker'],
  experimental: {
    // The proxy (proxy.ts) buffers a request's body up to this size and silently cuts the rest: it must hold the
    // largest run bundle PLANSCOPE_MAX_BUNDLE_BYTES may allow (64 MiB), so that the import's own limit refuses it, with its code.
    proxyClientMaxBodySize: 64 * 1024 * 1024 + 1,
  },
};

export default nextConfig;
