export { default } from "@propline/eslint-config"
