/**
 * Safe destinations (issue 22, item 4): a webhook goes only to a public unicast address unless the deployment
 * allows private destinations (`WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS=true`: the demo and the tests, for local
 * receivers). The address is checked when the endpoint is saved when its host is an IP literal, and on every
 * connection on the address the name resolved to (the caller's connector), so a name that later resolves to
 * 127.0.0.1 or 169.254.169.254 (DNS rebinding) is refused too.
 */
import ipaddr from "ipaddr.js"

/**
 * Why `address` (an IPv4 or IPv6 literal) is not a public destination — its range: `loopback`, `private`,
 * `linkLocal` (169.254.0.0/16, the metadata address among them), `uniqueLocal`, `unspecified`, `carrierGradeNat`,
 * `multicast`, `reserved`, … — or `undefined` when it is public unicast. IPv4-mapped IPv6 addresses are judged as
 * the IPv4 address; text that is no address is refused as `invalid`.
 */
export const refusedRange = (address: string): string | undefined => {
  if (!ipaddr.isValid(address)) return "invalid"
  const range = ipaddr.process(address).range()
  return range === "unicast" ? undefined : range
}

/** A URL an endpoint may be saved with, or why not (a message for the `url` field). */
export const urlProblem = (url: string, allowPrivate: boolean): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "must be an absolute URL"
  }
  if (parsed.protocol !== "https:" && !(allowPrivate && parsed.protocol === "http:")) {
    return allowPrivate ? "must be an http:// or https:// URL" : "must be an https:// URL"
  }
  if (parsed.username !== "" || parsed.password !== "") return "must not carry a user name or password"
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1")
  if (!allowPrivate) {
    if (host === "localhost" || host.endsWith(".localhost")) return "must not name a loopback host"
    if (ipaddr.isValid(host)) {
      const range = refusedRange(host)
      if (range !== undefined) return `must not name a ${range} address`
    }
  }
  return undefined
}
