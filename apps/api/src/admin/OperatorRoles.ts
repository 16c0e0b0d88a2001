/**
 * What an operator's role lets them change (issue 25, item 5), enforced by the host on every console request, so no
 * page and no new endpoint can forget it: a read-only operator's change (`POST`, `PUT`, `PATCH`, `DELETE`) is 403
 * unless it is to their own account (`/api/account/…`) or their session (`/api/session…`, signing out). Owners and
 * admins pass here; what separates them (the team's owners) is `OperatorTeam`'s rule.
 */

/** The console paths every signed-in operator may change: their own account and session. */
export const SELF_SERVICE_PREFIXES: ReadonlyArray<string> = ["/api/account", "/api/session"]

const isSelfService = (pathname: string) =>
  SELF_SERVICE_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`))

/** Whether an operator of `role` may send the change `method pathname` (reads always may). */
export const changeAllowed = (role: "owner" | "admin" | "read_only", method: string, pathname: string): boolean =>
  role !== "read_only" || method === "GET" || method === "HEAD" || method === "OPTIONS" || isSelfService(pathname)

/** The path of a request URL (`/api/x?y` → `/api/x`). */
export const pathnameOf = (url: string): string => new URL(url, "http://console.invalid").pathname
