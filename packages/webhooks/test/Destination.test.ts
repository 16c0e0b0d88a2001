import { describe, expect, it } from "@effect/vitest"
import { refusedRange, urlProblem } from "../src/Destination.js"

describe("Destination.refusedRange", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["fd00:ec2::254", "uniqueLocal"],
    ["fe80::1", "linkLocal"],
    ["224.0.0.1", "multicast"],
    ["not an address", "invalid"]
  ])("refuses %s (%s)", (address, range) => {
    expect(refusedRange(address)).toBe(range)
  })

  it.each(["93.184.216.34", "2606:4700::1111", "8.8.8.8"])("accepts the public address %s", (address) => {
    expect(refusedRange(address)).toBeUndefined()
  })
})

describe("Destination.urlProblem", () => {
  it.each([
    ["https://hooks.example.com/x", false, undefined],
    ["http://hooks.example.com/x", false, "must be an https:// URL"],
    ["http://127.0.0.1:8080/x", true, undefined],
    ["https://127.0.0.1/x", false, "must not name a loopback address"],
    ["https://[::1]/x", false, "must not name a loopback address"],
    ["https://10.1.1.1/x", false, "must not name a private address"],
    ["https://169.254.169.254/x", false, "must not name a linkLocal address"],
    ["https://localhost/x", false, "must not name a loopback host"],
    ["https://user:pw@hooks.example.com/x", false, "must not carry a user name or password"],
    ["ftp://hooks.example.com/x", true, "must be an http:// or https:// URL"],
    ["not a url", false, "must be an absolute URL"]
  ])("%s (private allowed: %s) → %s", (url, allowPrivate, problem) => {
    expect(urlProblem(url, allowPrivate)).toBe(problem)
  })
})
