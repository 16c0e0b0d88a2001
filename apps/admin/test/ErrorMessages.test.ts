/** The console's messages for the spec's codes and its mapping of `issues` to form fields. */
import { describe, expect, it } from "vitest"
import { fieldMessages, humanize, messageFor, plainSentence } from "../src/ErrorMessages.js"

describe("messageFor", () => {
  it("gives a known code's sentence, whatever the detail says", () => {
    expect(messageFor({ status: 400, code: "APPLICATION_SECRET_LIMIT_REACHED", detail: "x" })).toBe(
      "This Application already has 2 active secrets. Revoke one before issuing another."
    )
  })

  it("falls back to the API's detail for a code it has no sentence for", () => {
    expect(messageFor({ status: 400, code: "TWIN_NODE_NOT_FOUND", detail: "No such node." })).toBe("No such node.")
  })

  it("humanizes an unknown code without a detail", () => {
    expect(messageFor({ status: 400, code: "TWIN_NODE_NOT_FOUND" })).toBe("Twin node not found.")
    expect(humanize("BOOKING_SLOT_TAKEN")).toBe("Booking slot taken.")
  })

  it("says what a status means when there is no code", () => {
    expect(messageFor({ status: 401 })).toBe("Your session has ended. Sign in again.")
    expect(messageFor({ status: 404, detail: "There is no such Application." })).toBe(
      "The record does not exist, or it belongs to another organization."
    )
    expect(messageFor({ status: 418, detail: "teapot" })).toBe("teapot")
    expect(messageFor({ status: 418 })).toBe("The request failed (HTTP 418).")
  })

  it("points at the fields for VALIDATION_FAILED", () => {
    expect(messageFor({ status: 400, code: "VALIDATION_FAILED", issues: [] })).toBe("Some fields need attention.")
  })
})

describe("plainSentence", () => {
  it("turns the decoder's phrasings into instructions and never shows the value sent", () => {
    expect(plainSentence("Expected an integer, actual NaN")).toBe("Enter a whole number.")
    expect(plainSentence('Expected a Universally Unique Identifier, actual ""')).toBe("Choose one.")
    expect(plainSentence("must be an integer")).toBe("Enter a whole number.")
    expect(plainSentence("must be a UUID")).toBe("Choose one.")
    expect(plainSentence("is required")).toBe("This is required.")
    expect(plainSentence("must be one of: SEK, NOK")).toBe("Choose one of: SEK, NOK.")
    expect(plainSentence("Expected { readonly a: string }, actual 12")).toBe("This value is not valid.")
  })

  it("starts any other message with a capital and ends it with a full stop", () => {
    expect(plainSentence("must be the first day of a month")).toBe("Must be the first day of a month.")
    expect(plainSentence("is not a time zone")).toBe("This is not a time zone.")
    expect(plainSentence("Already a sentence.")).toBe("Already a sentence.")
  })
})

describe("messageFor with a refusal's own sentence", () => {
  it("adds a VALIDATION_FAILED problem's specific detail after the general sentence", () => {
    expect(messageFor({ status: 400, code: "VALIDATION_FAILED", detail: "The invoice run's period or date is not valid.", issues: [] })).toBe(
      "Some fields need attention. The invoice run's period or date is not valid."
    )
    expect(messageFor({ status: 400, code: "VALIDATION_FAILED", detail: "The request is not valid; see issues.", issues: [] })).toBe(
      "Some fields need attention."
    )
  })
})

describe("fieldMessages", () => {
  it("maps each issue to the field its JSON Pointer starts with, first issue first", () => {
    const problem = {
      status: 400,
      code: "VALIDATION_FAILED",
      issues: [
        { path: "/name", message: "must not be blank" },
        { path: "/contextIds/1", message: "is not an operational context of your organization" },
        { path: "/contextIds/2", message: "second" },
        { path: "/a~1b~0c", message: "escaped" },
        { path: "", message: "The body must be JSON." }
      ]
    }
    expect(fieldMessages(problem)).toEqual({
      name: "Enter a value: it can't be blank.",
      contextIds: "This is not an operational context of your organization.",
      "a/b~c": "Escaped.",
      _form: "The body must be JSON."
    })
  })

  it("is empty without a problem or issues", () => {
    expect(fieldMessages(undefined)).toEqual({})
    expect(fieldMessages({ status: 404 })).toEqual({})
  })
})
