import { describe, expect, it } from "@effect/vitest"
import {
  codePointLength,
  EXTERNAL_REFERENCE_MAX_LENGTH,
  EXTERNAL_REFERENCE_MIN_LENGTH,
  isExternalReference,
  isReasonText,
  REASON_MAX_LENGTH,
  REASON_MIN_LENGTH
} from "../src/ReasonText.js"

describe("length limits (spec 8)", () => {
  it("reason is 1 to 1000 characters", () => {
    expect([REASON_MIN_LENGTH, REASON_MAX_LENGTH]).toStrictEqual([1, 1000])
  })

  it("externalReference is 1 to 200 characters", () => {
    expect([EXTERNAL_REFERENCE_MIN_LENGTH, EXTERNAL_REFERENCE_MAX_LENGTH]).toStrictEqual([1, 200])
  })
})

describe("codePointLength (JSON Schema counts code points)", () => {
  const cases: ReadonlyArray<readonly [string, number]> = [
    ["", 0],
    ["abc", 3],
    ["Ångström", 8],
    ["😀", 1],
    ["a😀b", 3],
    ["👍🏽", 2],
    ["\ud800", 1]
  ]
  for (const [text, length] of cases) {
    it(`${JSON.stringify(text)} is ${length}`, () => {
      expect(codePointLength(text)).toBe(length)
    })
  }
})

describe("isReasonText (1 to 1000 code points)", () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    ["empty", "", false],
    ["one character", "x", true],
    ["one space (whitespace counts)", " ", true],
    ["1000 characters", "x".repeat(1000), true],
    ["1001 characters", "x".repeat(1001), false],
    ["1000 emoji (2000 UTF-16 units)", "😀".repeat(1000), true],
    ["1001 emoji", "😀".repeat(1001), false]
  ]
  for (const [name, text, valid] of cases) {
    it(`${valid ? "accepts" : "refuses"} ${name}`, () => {
      expect(isReasonText(text)).toBe(valid)
    })
  }
})

describe("isExternalReference (1 to 200 code points)", () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    ["empty", "", false],
    ["one character", "7", true],
    ["200 characters", "R".repeat(200), true],
    ["201 characters", "R".repeat(201), false],
    ["200 emoji (400 UTF-16 units)", "😀".repeat(200), true],
    ["201 emoji", "😀".repeat(201), false]
  ]
  for (const [name, text, valid] of cases) {
    it(`${valid ? "accepts" : "refuses"} ${name}`, () => {
      expect(isExternalReference(text)).toBe(valid)
    })
  }
})
