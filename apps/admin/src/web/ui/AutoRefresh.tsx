/**
 * A status page that refreshes itself (issue 25: integration status needed a manual reload): `reload` every
 * `seconds` while the tab is visible, and at once when it becomes visible again; the line says so and when it last
 * read. The view stays on screen while it reads again (`useLoad` keeps it), so focus and scroll stay put.
 */
import { useEffect, useState } from "react"
import { When } from "./Time.js"

export const AutoRefresh = ({ reload, seconds = 10 }: { readonly reload: () => void; readonly seconds?: number }) => {
  const [readAt, setReadAt] = useState(() => new Date())
  useEffect(() => {
    const tick = () => {
      if (document.visibilityState !== "visible") return
      reload()
      setReadAt(new Date())
    }
    const timer = window.setInterval(tick, seconds * 1000)
    document.addEventListener("visibilitychange", tick)
    return () => {
      window.clearInterval(timer)
      document.removeEventListener("visibilitychange", tick)
    }
  }, [reload, seconds])
  return (
    <p className="hint auto-refresh">
      Refreshes itself every {seconds} seconds; last read <When at={readAt} seconds />.
    </p>
  )
}
