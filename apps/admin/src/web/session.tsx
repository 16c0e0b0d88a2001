/** The signed-in session for the whole console: who, which organization, and the sign-in / sign-out actions. */
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react"
import type { SecondFactorRequired, SessionView } from "@propline/contract/AdminSession"
import { call, type Problem, type Result, setCsrfToken } from "./api.js"

type State =
  | { readonly _tag: "loading" }
  | { readonly _tag: "signedOut"; readonly reason?: string }
  | { readonly _tag: "signedIn"; readonly session: SessionView }

interface SessionContextValue {
  readonly state: State
  /** Signs in; an operator with a second factor gets `SecondFactorRequired`, then calls {@link secondFactor}. */
  readonly signIn: (email: string, password: string) => Promise<Result<SessionView | SecondFactorRequired>>
  /** The second step of a sign-in that waits for a TOTP code or a recovery code. */
  readonly secondFactor: (code: string) => Promise<Result<SessionView>>
  readonly signOut: () => Promise<void>
  /** The server said 401: the session ended elsewhere (expired, signed out in another tab). */
  readonly expired: () => void
}

const SessionContext = createContext<SessionContextValue | undefined>(undefined)

export const SessionProvider = ({ children }: { readonly children: ReactNode }) => {
  const [state, setState] = useState<State>({ _tag: "loading" })

  useEffect(() => {
    void call((client) => client.session.current()).then((result) => {
      if (result.ok) {
        setCsrfToken(result.value.csrfToken)
        setState({ _tag: "signedIn", session: result.value })
      } else setState({ _tag: "signedOut" })
    })
  }, [])

  const signIn = useCallback(async (email: string, password: string) => {
    const result = await call((client) => client.signIn.signIn({ payload: { email, password } }))
    if (result.ok && "csrfToken" in result.value) {
      setCsrfToken(result.value.csrfToken)
      setState({ _tag: "signedIn", session: result.value })
    }
    return result
  }, [])

  const secondFactor = useCallback(async (code: string) => {
    const result = await call((client) => client.signIn.secondFactor({ payload: { code } }))
    if (result.ok) {
      setCsrfToken(result.value.csrfToken)
      setState({ _tag: "signedIn", session: result.value })
    }
    return result
  }, [])

  const signOut = useCallback(async () => {
    await call((client) => client.session.signOut())
    setCsrfToken(undefined)
    setState({ _tag: "signedOut", reason: "You are signed out." })
  }, [])

  const expired = useCallback(() => {
    setCsrfToken(undefined)
    setState({ _tag: "signedOut", reason: "Your session has ended. Sign in again." })
  }, [])

  const value = useMemo(() => ({ state, signIn, secondFactor, signOut, expired }), [state, signIn, secondFactor, signOut, expired])
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>
}

export const useSession = (): SessionContextValue => {
  const value = useContext(SessionContext)
  if (value === undefined) throw new Error("useSession outside SessionProvider")
  return value
}

/** The signed-in session; only under the signed-in layout. */
export const useSignedIn = (): SessionView => {
  const { state } = useSession()
  if (state._tag !== "signedIn") throw new Error("useSignedIn while signed out")
  return state.session
}

type Load<A> =
  | { readonly _tag: "loading" }
  | { readonly _tag: "failed"; readonly problem: Problem }
  | { readonly _tag: "loaded"; readonly value: A }

/**
 * Loads `fetch` whenever `key` changes; a 401 ends the session in the console too. `reload` fetches again.
 */
export const useLoad = <A,>(key: string, fetch: () => Promise<Result<A>>): { readonly load: Load<A>; readonly reload: () => void } => {
  const { expired } = useSession()
  const [load, setLoad] = useState<Load<A>>({ _tag: "loading" })
  const [round, setRound] = useState(0)
  const loadedKey = useRef<string | undefined>(undefined)
  useEffect(() => {
    let current = true
    // Reading the same view again (`reload`, a page that refreshes itself) keeps it on screen until the answer.
    if (loadedKey.current !== key) setLoad({ _tag: "loading" })
    loadedKey.current = key
    void fetch().then((result) => {
      if (!current) return
      if (result.ok) setLoad({ _tag: "loaded", value: result.value })
      else if (result.problem.status === 401) expired()
      else setLoad({ _tag: "failed", problem: result.problem })
    })
    return () => {
      current = false
    }
  }, [key, round]) // `key` names everything `fetch` reads
  const reload = useCallback(() => setRound((n) => n + 1), [])
  return { load, reload }
}

/**
 * A change the operator starts (a button, a form): `run` calls the API and gives the answer's value, or undefined
 * after a refusal, which `problem` then holds for the page to show (a 401 ends the session instead).
 */
export const useAction = () => {
  const { expired } = useSession()
  const [problem, setProblem] = useState<Problem | undefined>()
  const [busy, setBusy] = useState(false)
  const run = useCallback(
    async <A,>(change: () => Promise<Result<A>>): Promise<A | undefined> => {
      setBusy(true)
      const result = await change()
      setBusy(false)
      if (result.ok) {
        setProblem(undefined)
        return result.value
      }
      if (result.problem.status === 401) expired()
      else setProblem(result.problem)
      return undefined
    },
    [expired]
  )
  return { problem, busy, run }
}
