export { default } from "@propline/vitest-config"
