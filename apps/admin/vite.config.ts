// The front end: src/web built to dist/web, which the admin host serves. JSX goes through Vite's own esbuild
// transform (the automatic runtime), so no React plugin is needed; hashed asset names let the host cache them.
import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

export default defineConfig({
  root: fileURLToPath(new URL("./src/web", import.meta.url)),
  base: "/",
  esbuild: { jsx: "automatic" },
  build: {
    outDir: fileURLToPath(new URL("./dist/web", import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: "es2022",
    chunkSizeWarningLimit: 1024
  }
})
