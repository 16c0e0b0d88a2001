/**
 * A small router over the History API: the console's routes are plain paths with query strings (filters and page
 * cursors live in the URL, so every list view can be linked and reloaded), and links are real `<a href>` elements
 * that the router intercepts for same-window clicks.
 */
import { type AnchorHTMLAttributes, createContext, type MouseEvent, type ReactNode, useContext, useEffect, useState } from "react"

interface Location {
  readonly pathname: string
  readonly search: URLSearchParams
}

const read = (): Location => ({ pathname: window.location.pathname, search: new URLSearchParams(window.location.search) })

const LocationContext = createContext<Location>(read())

const listeners = new Set<() => void>()

/** Goes to `href` (a path with an optional query), adding a history entry unless `replace`. */
export const navigate = (href: string, options: { readonly replace?: boolean } = {}): void => {
  if (options.replace === true) window.history.replaceState(null, "", href)
  else window.history.pushState(null, "", href)
  for (const listener of listeners) listener()
}

export const RouterProvider = ({ children }: { readonly children: ReactNode }) => {
  const [location, setLocation] = useState(read)
  useEffect(() => {
    const update = () => setLocation(read())
    listeners.add(update)
    window.addEventListener("popstate", update)
    return () => {
      listeners.delete(update)
      window.removeEventListener("popstate", update)
    }
  }, [])
  return <LocationContext.Provider value={location}>{children}</LocationContext.Provider>
}

export const useLocation = (): Location => useContext(LocationContext)

/** Matches `pattern` ("/applications/:id") against `pathname`; the parameters, or undefined. */
export const match = (pattern: string, pathname: string): Record<string, string> | undefined => {
  const want = pattern.split("/")
  const got = (pathname.replace(/\/+$/, "") || "/").split("/")
  if (want.length !== got.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!
    if (segment.startsWith(":")) params[segment.slice(1)] = decodeURIComponent(got[i]!)
    else if (segment !== got[i]) return undefined
  }
  return params
}

/** A path with a query of the non-empty `params`. */
export const hrefWith = (pathname: string, params: Readonly<Record<string, string | undefined>>): string => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") search.set(key, value)
  const query = search.toString()
  return query === "" ? pathname : `${pathname}?${query}`
}

export const Link = ({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { readonly href: string }) => {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event)
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(href)
  }
  return <a href={href} onClick={handle} {...rest} />
}
