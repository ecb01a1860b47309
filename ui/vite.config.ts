import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

const iconsDir = fileURLToPath(new URL("../icons", import.meta.url));

export default defineConfig({
  // Relative asset URLs: the same build is loaded from Tauri's custom protocol
  // and from the engine's HTTP server.
  base: "./",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // Every asset is a file of its own, so a strict Content-Security-Policy
    // (img-src 'self', no data: URLs) holds in the window and in the browser.
    assetsInlineLimit: 0,
  },
  server: {
    port: 5173,
    strictPort: true,
    // The app icon is drawn once, in ../icons, and used from there.
    fs: { allow: [".", iconsDir] },
  },
  preview: {
    port: 4173,
    strictPort: true,
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.{ts,tsx}"],
    // Vitest leaves a core to its main thread, which does little: on two cores that ran every
    // file in one worker (142 s, against 100 s in two).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
