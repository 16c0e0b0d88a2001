/**
 * The operator's cancel action on a booking request (issue 26): a plain form — an optional reason and, for a
 * cancellation past the resource's deadline, whether its late-cancellation charge is made or waived — sent after the
 * console's confirmation dialog (`ui/Dialog.tsx`). The booking service checks it as it checks a website's cancel (the refusal shows in the form).
 */
import type { BookingRequestView } from "@propline/contract/BookingAdmin"
import { type FormEvent, useState } from "react"
import { call } from "../api.js"
import { useAction } from "../session.js"
import { ProblemNotice } from "../ui.js"
import { ChangeButton, ChangeForm } from "../ui/Change.js"
import { useDialog } from "../ui/Dialog.js"

const LATE_CHOICES = [
  ["", "No late charge decision (free cancellation)"],
  ["charge", "Late: charge the resource's late-cancellation fee"],
  ["waive", "Late: waive the fee"]
] as const

/** "Cancel booking…" for a pending or approved request; `onCancelled` after the booking service cancelled it. */
export const CancelBooking = ({ request, onCancelled }: { readonly request: BookingRequestView; readonly onCancelled: () => void }) => {
  const [open, setOpen] = useState(false)
  const [reason, setReason] = useState("")
  const [late, setLate] = useState<"" | "charge" | "waive">("")
  const action = useAction()
  const dialog = useDialog()
  if (request.status !== "pending" && request.status !== "approved") return null
  const who = `${request.guestName}'s booking of ${request.resourceName}`
  if (!open) {
    return (
      <ChangeButton type="button" className="danger" onClick={() => setOpen(true)}>
        Cancel booking…<span className="visually-hidden"> {who}</span>
      </ChangeButton>
    )
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const confirmed = await dialog.confirm({
      title: `Cancel ${who}?`,
      body: "The booking is cancelled and its time becomes free at once. This can't be undone.",
      confirm: "Cancel the booking",
      tone: "danger"
    })
    if (!confirmed) return
    const done = await action.run(() =>
      call((client) =>
        client.booking.cancelRequest({
          path: { bookingId: request.id },
          payload: {
            ...(reason.trim() === "" ? {} : { reason: reason.trim() }),
            ...(late === "" ? {} : { lateCancellation: late })
          }
        })
      )
    )
    if (done !== undefined) {
      setOpen(false)
      onCancelled()
    }
  }
  return (
    <ChangeForm className="cancel-booking" aria-label={`Cancel ${who}`} onSubmit={(event) => void submit(event)}>
      <ProblemNotice problem={action.problem} />
      <label>
        Reason (optional)
        <input name="reason" maxLength={1000} value={reason} onChange={(event) => setReason(event.target.value)} />
      </label>
      <label>
        Late cancellation
        <select name="lateCancellation" value={late} onChange={(event) => setLate(event.target.value as "" | "charge" | "waive")}>
          {LATE_CHOICES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <p className="row-actions">
        <button type="submit" className="danger" disabled={action.busy}>
          Confirm cancellation
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Keep booking
        </button>
      </p>
    </ChangeForm>
  )
}
