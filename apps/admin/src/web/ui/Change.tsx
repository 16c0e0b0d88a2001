/**
 * Changes a read-only operator can't make (issue 25): the server refuses every change of a `read_only` operator
 * with 403 (`apps/api/src/admin/OperatorRoles.ts`), so the console doesn't offer them. Every change control goes
 * through here: {@link useCanChange} tells whether the signed-in role may change the organization's records, and
 * {@link Change}, {@link ChangeButton} and {@link ChangeForm} disable (with the reason as `title`) or hide the
 * controls when it may not. The operator's own account (password, second factor, sessions) is no such change.
 */
import type { ButtonHTMLAttributes, FormHTMLAttributes, ReactNode } from "react"
import { useSession } from "../session.js"

/** Why a change control is disabled for a read-only operator (its `title`). */
export const READ_ONLY_REASON = "You are a read-only operator: an owner or an admin can make this change."

/**
 * Whether the signed-in operator may change the organization's records: `allowed`, or not with `why` (the
 * sentence a disabled control shows on hover). Owners and admins may; read-only operators may not. Signed out (an
 * invitation's page) there is no role to hold back.
 */
export const useCanChange = (): { readonly allowed: true; readonly why: undefined } | { readonly allowed: false; readonly why: string } => {
  const { state } = useSession()
  return state._tag === "signedIn" && state.session.operator.role === "read_only"
    ? { allowed: false, why: READ_ONLY_REASON }
    : { allowed: true, why: undefined }
}

/**
 * Change controls (forms' inputs and buttons): as they are for an operator who may change; for a read-only one,
 * inside a disabled fieldset that disables every control in it and says why on hover, or, with `hide`, not shown
 * at all (a link to a form for a new record).
 */
export const Change = ({ children, hide }: { readonly children: ReactNode; readonly hide?: boolean }) => {
  const can = useCanChange()
  if (can.allowed) return <>{children}</>
  if (hide === true) return null
  return (
    <fieldset className="change-guard" disabled title={can.why}>
      {children}
    </fieldset>
  )
}

/** A button that changes a record: disabled, with the reason as its `title`, for a read-only operator. */
export const ChangeButton = ({ disabled, title, ...props }: ButtonHTMLAttributes<HTMLButtonElement>) => {
  const can = useCanChange()
  return <button {...props} disabled={disabled === true || !can.allowed} title={can.why ?? title} />
}

/** A form that changes a record: every control in it disabled, with the reason on hover, for a read-only operator. */
export const ChangeForm = ({ children, ...props }: FormHTMLAttributes<HTMLFormElement>) => (
  <form {...props}>
    <Change>{children}</Change>
  </form>
)
