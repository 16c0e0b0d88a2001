import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import {
  formatReference,
  isWellFormedReference,
  REFERENCE_PREFIX,
  setupAddress
} from "../src/ConnectionReference.js"
import type { IntegrationKind } from "../src/IntegrationConfiguration.js"
import { checkSettings } from "../src/KindSettings.js"

const paths = (kind: IntegrationKind, settings: Record<string, unknown>) => {
  const result = checkSettings(kind, settings)
  return Either.isLeft(result) ? result.left.map((issue) => issue.path) : []
}

describe("KindSettings.checkSettings", () => {
  it.each([
    ["billing", {}],
    ["billing", { invoiceSeries: "B", bookkeepingCurrency: "NOK" }],
    ["billing", { invoiceSeries: "😀".repeat(20) }],
    ["signing", { signatureMethods: ["bankid-se", "email-link"] }],
    ["signing", { signatureMethods: ["mitid"], documentExpiryDays: 90 }],
    ["booking", { websiteUrl: "https://book.nordhavn.example/rooms?lang=sv" }],
    ["booking", { websiteUrl: "https://book.nordhavn.example", brandName: "Nordhavn Rooms" }]
  ] as const)("accepts %s settings %j as sent", (kind, settings) => {
    expect(checkSettings(kind, settings)).toStrictEqual(Either.right(settings))
  })

  it.each([
    ["billing", { invoiceSeries: "x".repeat(21) }, ["/settings/invoiceSeries"]],
    ["billing", { invoiceSeries: "A\u0007" }, ["/settings/invoiceSeries"]],
    ["billing", { bookkeepingCurrency: "BTC" }, ["/settings/bookkeepingCurrency"]],
    ["billing", { signatureMethods: ["bankid-se"] }, ["/settings/signatureMethods"]],
    ["signing", {}, ["/settings/signatureMethods"]],
    ["signing", { signatureMethods: [] }, ["/settings/signatureMethods"]],
    ["signing", { signatureMethods: ["bankid-se", "bankid-se"] }, ["/settings/signatureMethods"]],
    ["signing", { signatureMethods: ["fax"] }, ["/settings/signatureMethods/0"]],
    ["signing", { signatureMethods: ["mitid"], documentExpiryDays: 0 }, ["/settings/documentExpiryDays"]],
    ["signing", { signatureMethods: ["mitid"], documentExpiryDays: 1.5 }, ["/settings/documentExpiryDays"]],
    ["booking", {}, ["/settings/websiteUrl"]],
    ["booking", { websiteUrl: "http://book.example" }, ["/settings/websiteUrl"]],
    ["booking", { websiteUrl: "https://user:pw@book.example" }, ["/settings/websiteUrl"]],
    ["booking", { websiteUrl: `https://book.example/${"a".repeat(2000)}` }, ["/settings/websiteUrl"]],
    ["booking", { websiteUrl: "https://book.example/\u0000" }, ["/settings/websiteUrl"]],
    ["booking", { websiteUrl: "\u0001https://book.example/" }, ["/settings/websiteUrl"]],
    ["booking", { websiteUrl: "https://book.example", brandName: "   ", extra: 1 }, ["/settings/extra", "/settings/brandName"]]
  ] as const)("refuses %s settings %j at %j", (kind, settings, expected) => {
    expect(paths(kind, settings)).toStrictEqual(expected)
  })
})

describe("ConnectionReference", () => {
  it("writes icr_ and 43 base64url characters from 32 random bytes, deterministically", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, index) => index * 7)
    const reference = formatReference(bytes)
    expect(reference.startsWith(REFERENCE_PREFIX)).toBe(true)
    expect(reference).toHaveLength(47)
    expect(isWellFormedReference(reference)).toBe(true)
    expect(formatReference(bytes)).toBe(reference)
    expect(Buffer.from(reference.slice(4), "base64url")).toStrictEqual(Buffer.from(bytes))
  })

  it("refuses fewer than 32 bytes", () => {
    expect(() => formatReference(new Uint8Array(31))).toThrow(RangeError)
  })

  it.each(["", "icr_", `icr_${"a".repeat(42)}`, `icr_${"a".repeat(44)}`, `icx_${"a".repeat(43)}`, `icr_${"a".repeat(42)}=`])(
    "does not take %j for a reference",
    (value) => expect(isWellFormedReference(value)).toBe(false)
  )

  it("adds the reference and the installation to the setup URL's query, keeping what it had", () => {
    const address = setupAddress("https://erp.example/setup?x=1", "icr_a&b", "inst")
    expect(address).toBe("https://erp.example/setup?x=1&connection_reference=icr_a%26b&installation_id=inst")
  })
})
