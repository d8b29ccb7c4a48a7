import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Served by the relay under /app: hashed assets, no inline script (the page's CSP has no 'unsafe-inline'). The
// service worker is a second entry built to a fixed name, /app/sw.js, so its scope is /app/.
export default defineConfig({
  base: "/app/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    rollupOptions: {
      input: { main: "index.html", sw: "src/sw.ts" },
      output: {
        entryFileNames: (chunk) => (chunk.name === "sw" ? "sw.js" : "assets/[name]-[hash].js"),
      },
    },
  },
});
