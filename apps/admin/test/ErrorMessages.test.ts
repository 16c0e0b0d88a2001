/** The console's messages for the spec's codes and its mapping of `issues` to form fields. */
import { describe, expect, it } from "vitest"
import { fieldMessages, humanize, messageFor } from "../src/ErrorMessages.js"

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
      name: "must not be blank",
      contextIds: "is not an operational context of your organization",
      "a/b~c": "escaped",
      _form: "The body must be JSON."
    })
  })

  it("is empty without a problem or issues", () => {
    expect(fieldMessages(undefined)).toEqual({})
    expect(fieldMessages({ status: 404 })).toEqual({})
  })
})
