import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Served by the broker under /ui: hashed assets, no inline script (the page's CSP has no 'unsafe-inline').
export default defineConfig({
  base: "/ui/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
