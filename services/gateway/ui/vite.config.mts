import { defineConfig } from 'vite';

/**
 * The fleet web UI (decision 0029): built into `dist/`, which the gateway
 * serves at `/`. esbuild compiles the TSX (React's automatic runtime); no
 * plugin is needed for a production build.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      // React Query marks its modules "use client" (for server components); a browser bundle has no use for it.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  logLevel: 'warn',
});
