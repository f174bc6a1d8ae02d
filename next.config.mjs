// Plain JavaScript, not TypeScript: Next compiles a next.config.ts with its native SWC binding
// each time the server starts, and that binding then stays mapped (24 MB of the server's memory).
/** @type {import("next").NextConfig} */
const nextConfig = {
  // `npm test` runs tsc over the whole project; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  // Studio uploads of images up to 4 MB go through server actions.
  experimental: {
    serverActions: { bodySizeLimit: "5mb" },
    // Turbopack's cache makes the next build of a checkout ~3x faster, but writing it costs ~20 s:
    // CI builds each fresh clone once, and .ci/run turns it off (NEXT_BUILD_CACHE=off).
    turbopackFileSystemCacheForBuild: process.env.NEXT_BUILD_CACHE !== "off",
  },
  // Node-only packages the core uses: loaded from node_modules at run time, never bundled.
  serverExternalPackages: [
    "better-sqlite3",
    "prom-client",
    "pg",
    "sharp",
    "pino",
    "kysely",
    "@ffmpeg-installer/ffmpeg",
    "music-metadata",
    "qrcode",
    "standardwebhooks",
    "rate-limiter-flexible",
    "ajv",
    "ajv-formats",
  ],
};

export default nextConfig;
