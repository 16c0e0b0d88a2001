export { default } from "@propline/eslint-config/domain"
