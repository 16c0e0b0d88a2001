/**
 * The client address of a request: the peer that sent it, or, when that peer is a trusted proxy, the address the
 * proxies say they received it from (`X-Forwarded-For`, the de-facto form of RFC 7239's `for=`). Used for the
 * sign-in throttle and the audit log, so it must not be a value a client can choose.
 *
 * - With no trusted proxy (the default) the socket's remote address is the client, and `X-Forwarded-For` is
 *   ignored: anyone can send it.
 * - Behind trusted proxies (`TRUSTED_PROXIES`: addresses and CIDR ranges), the list is read from the right — each
 *   proxy appends the address it received the request from — skipping trusted hops; the first address that is not
 *   trusted is the client. Entries to its left were written by the client itself and are never read (MDN,
 *   "X-Forwarded-For: Security and privacy concerns"). When every hop is trusted, the left-most is the client.
 *
 * Addresses are compared and returned in one form: IPv4 dotted, IPv6 lower-case, an IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`) as its IPv4 address, without brackets or port.
 */
import { Either } from "effect"
import { BlockList, isIP } from "node:net"

/** Which peers may speak for the client; built once from the `TRUSTED_PROXIES` entries ({@link trustedProxies}). */
export interface TrustedProxies {
  /** The entries as configured. */
  readonly entries: ReadonlyArray<string>
  /** Whether `address` (in the form {@link normalizeAddress} gives) is one of them. */
  readonly trusts: (address: string) => boolean
}

/** Trusts no one: the socket's remote address is always the client. */
export const noTrustedProxies: TrustedProxies = { entries: [], trusts: () => false }

const family = (address: string): "ipv4" | "ipv6" | undefined => {
  const version = isIP(address)
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : undefined
}

/**
 * An address in the one form this module compares (see the module comment), or undefined when `text` is not an IP
 * address. Accepts `[v6]`, `[v6]:port` and `v4:port`, as some proxies write them.
 */
export const normalizeAddress = (text: string): string | undefined => {
  let address = text.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed !== null) address = bracketed[1] ?? ""
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"))
  const kind = family(address)
  if (kind === undefined) return undefined
  if (kind === "ipv4") return address
  const lower = address.toLowerCase()
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  return mapped !== null && family(mapped[1] ?? "") === "ipv4" ? mapped[1] : lower
}

/**
 * Parses `TRUSTED_PROXIES` entries: each an IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`). Left with the
 * first entry that is neither.
 */
export const trustedProxies = (entries: ReadonlyArray<string>): Either.Either<TrustedProxies, string> => {
  const list = new BlockList()
  for (const entry of entries) {
    const [base = "", prefix, ...rest] = entry.trim().split("/")
    const address = normalizeAddress(base)
    const kind = address === undefined ? undefined : family(address)
    if (address === undefined || kind === undefined || rest.length > 0) {
      return Either.left(`"${entry}" is neither an IP address nor a CIDR range`)
    }
    if (prefix === undefined) {
      list.addAddress(address, kind)
      continue
    }
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN
    if (!(bits >= 0 && bits <= (kind === "ipv4" ? 32 : 128))) return Either.left(`"${entry}" has an invalid prefix length`)
    list.addSubnet(address, bits, kind)
  }
  return Either.right({
    entries: [...entries],
    trusts: (address) => {
      const kind = family(address)
      return kind !== undefined && list.check(address, kind)
    }
  })
}

/**
 * The client address of a request whose socket peer is `remoteAddress` and whose `X-Forwarded-For` header (every
 * occurrence, comma-joined, as Node gives it) is `forwardedFor`. Undefined only without a remote address (a socket
 * already closed). An entry that is not an IP address ends the walk: the trusted hop that wrote it is the client.
 */
export const clientAddress = (
  remoteAddress: string | undefined,
  forwardedFor: string | undefined,
  trusted: TrustedProxies
): string | undefined => {
  const peer = remoteAddress === undefined ? undefined : (normalizeAddress(remoteAddress) ?? remoteAddress)
  if (peer === undefined || forwardedFor === undefined || !trusted.trusts(peer)) return peer
  let client = peer
  const hops = forwardedFor.split(",")
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = normalizeAddress(hops[index] ?? "")
    if (hop === undefined) return client
    client = hop
    if (!trusted.trusts(hop)) return hop
  }
  return client
}
