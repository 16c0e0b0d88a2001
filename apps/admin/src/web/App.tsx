/** The console's frame: sign-in while signed out; otherwise the header, the navigation and the current page. */
import { useEffect, useRef, useState } from "react"
import { Link, match, useLocation } from "./router.js"
import { navigation, routes } from "./routes.js"
import { useSession, useSignedIn } from "./session.js"
import { SignIn } from "./pages/SignIn.js"
import { InvitationPage } from "./pages/Invitation.js"
import { Loading } from "./ui.js"
import { localeFor, setLocale } from "./format.js"

const NotFound = () => (
  <>
    <h1>Page not found</h1>
    <p>
      <Link href="/">Go to the organization</Link>
    </p>
  </>
)

/** The navigation link of the current page: its own path, or a record under it (not a sibling list under a section). */
const isCurrent = (href: string, pathname: string, hrefs: ReadonlyArray<string>) =>
  pathname === href || (pathname.startsWith(`${href}/`) && !hrefs.some((other) => other !== href && other.length > href.length && pathname.startsWith(other)))

const allLinks = navigation.flatMap((section) => section.links.map(([href]) => href))

const SignedIn = () => {
  const session = useSignedIn()
  // Money, dates and times as the organization's country writes them (before any page renders).
  setLocale(localeFor(session.organization.country))
  const { signOut } = useSession()
  const { pathname } = useLocation()
  const main = useRef<HTMLElement>(null)
  // Below 768 px the navigation is folded behind "Menu"; going to a page folds it again.
  const [menuOpen, setMenuOpen] = useState(false)
  useEffect(() => setMenuOpen(false), [pathname])
  const route = routes.map((candidate) => ({ candidate, params: match(candidate.pattern, pathname) })).find((found) => found.params !== undefined)

  // After a navigation, focus moves to the page (a screen reader announces it; the keyboard starts there).
  const first = useRef(true)
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    main.current?.focus()
  }, [pathname])

  return (
    <div className="frame">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/" className="brand">
          Propline admin
        </Link>
        <p className="who">
          <span className="org">{session.organization.name}</span>
          <span className="muted"> · {session.operator.email}</span>
        </p>
        <button
          type="button"
          className="secondary menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-navigation"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav id="main-navigation" className={menuOpen ? "side open" : "side"} aria-label="Main">
        {navigation.map((section) => (
          <div key={section.title}>
            <h2>{section.title}</h2>
            <ul>
              {section.links.map(([href, label]) => (
                <li key={href}>
                  <Link href={href} aria-current={isCurrent(href, pathname, allLinks) ? "page" : undefined}>
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {route === undefined ? <NotFound /> : route.candidate.render(route.params!)}
      </main>
    </div>
  )
}

export const App = () => {
  const { state } = useSession()
  const { pathname } = useLocation()
  // An invitation is opened signed out (or as someone else): its page needs no session.
  if (pathname === "/invitation") return <InvitationPage />
  if (state._tag === "loading") return <Loading />
  if (state._tag === "signedOut") return <SignIn reason={state.reason} />
  return <SignedIn />
}
