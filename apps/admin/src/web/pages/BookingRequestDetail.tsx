/**
 * A booking request's page (issue 25, item 3) and the operator's decisions on it: approve and decline, each asked
 * in the console's dialog — a decline asks for the reason the guest is told (it was `window.prompt`) — then a
 * message that says what happened. The booking requests page uses the same decisions.
 */
import { useState } from "react"
import type { BookingRequestView } from "@propline/contract/BookingAdmin"
import { call } from "../api.js"
import { currentLocale } from "../format.js"
import { Money } from "../ui/Money.js"
import { Link } from "../router.js"
import { useAction } from "../session.js"
import { Facts, ProblemNotice, RecordPage, Status } from "../ui.js"
import { ChangeButton } from "../ui/Change.js"
import { useDialog } from "../ui/Dialog.js"
import { When } from "../ui/Time.js"

/** "Astrid Lindqvist's booking of Room 3". */
const bookingName = (request: BookingRequestView) => `${request.guestName}'s booking of ${request.resourceName}`

/** When the request is, as the resource's time zone reads it. */
const slot = (request: BookingRequestView) => {
  const format = new Intl.DateTimeFormat(currentLocale(), { timeZone: request.timeZone, dateStyle: "medium", timeStyle: "short" })
  return `${format.format(request.startsAt)} (${request.timeZone})`
}

/**
 * Approve or decline a request, asked first; `decided` holds the answer for {@link DecisionNotice}, and `onDone`
 * runs after a decision (the page reads its lists again).
 */
export const useBookingDecision = (onDone: (request: BookingRequestView) => void) => {
  const action = useAction()
  const dialog = useDialog()
  const [decided, setDecided] = useState<BookingRequestView | undefined>()
  const decide = async (request: BookingRequestView, verdict: "approve" | "decline") => {
    let reason = ""
    if (verdict === "approve") {
      const confirmed = await dialog.confirm({
        title: `Approve ${bookingName(request)}?`,
        body: (
          <p>
            {slot(request)}, <Money minorUnits={request.totalGrossMinorUnits} currency={request.currency} />. The slot is booked and the guest is told it is
            confirmed.
          </p>
        ),
        confirm: "Approve the booking"
      })
      if (!confirmed) return
    } else {
      const answer = await dialog.ask({
        title: `Decline ${bookingName(request)}?`,
        body: <p>{slot(request)}. The slot is released and the guest is told, with your reason.</p>,
        label: "Reason (the guest reads it)",
        maxLength: 1000,
        required: "Write the reason: the guest is told why.",
        confirm: "Decline the booking",
        tone: "danger"
      })
      if (answer === undefined) return
      reason = answer
    }
    const done = await action.run(() =>
      call((client) =>
        verdict === "approve"
          ? client.booking.approveRequest({ path: { bookingId: request.id } })
          : client.booking.declineRequest({ path: { bookingId: request.id }, payload: { reason } })
      )
    )
    if (done === undefined) return
    setDecided(done)
    onDone(done)
  }
  return { decide, decided, problem: action.problem, busy: action.busy }
}

/** What a decision did, in a sentence. */
export const DecisionNotice = ({ request }: { readonly request: BookingRequestView | undefined }) =>
  request === undefined ? null : (
    <p className="notice" role="status">
      <Link href={`/booking/requests/${request.id}`}>{bookingName(request)}</Link>{" "}
      {request.status === "approved" ? "approved: the slot is booked and the guest is told." : `${request.status}: the guest is told.`}
    </p>
  )

const RequestContent = ({ request, reload }: { readonly request: BookingRequestView; readonly reload: () => void }) => {
  const decision = useBookingDecision(reload)
  return (
    <>
      <ProblemNotice problem={decision.problem} />
      <DecisionNotice request={decision.decided} />
      <Facts
        items={[
          ["Status", <Status value={request.status} />],
          ["Resource", <Link href={`/booking/resources/${request.resourceId}`}>{request.resourceName}</Link>],
          ["Starts", <When at={request.startsAt} />],
          ["Ends", <When at={request.endsAt} />],
          ["Resource's time zone", request.timeZone],
          ["Guest", `${request.guestName} <${request.guestEmail}>`],
          ["Company", request.companyName ?? "—"],
          ["Total", <Money minorUnits={request.totalGrossMinorUnits} currency={request.currency} />],
          ["Held until", request.status === "pending" ? <When at={request.holdExpiresAt} /> : "—"],
          ["Requested", <When at={request.createdAt} />]
        ]}
      />
      {request.message === null ? null : (
        <>
          <h2>The guest's message</h2>
          <p className="prewrap">{request.message}</p>
        </>
      )}
      {request.declineReason === null ? null : (
        <>
          <h2>Why it was declined</h2>
          <p className="prewrap">{request.declineReason}</p>
        </>
      )}
      {request.status === "pending" ? (
        <div className="record-actions actions">
          <ChangeButton type="button" onClick={() => void decision.decide(request, "approve")} disabled={decision.busy}>
            Approve
          </ChangeButton>
          <ChangeButton type="button" className="danger" onClick={() => void decision.decide(request, "decline")} disabled={decision.busy}>
            Decline
          </ChangeButton>
        </div>
      ) : null}
    </>
  )
}

export const BookingRequestPage = ({ id }: { readonly id: string }) => (
  <RecordPage
    loadKey={`booking request ${id}`}
    fetch={() => call((client) => client.booking.getRequest({ path: { bookingId: id } }))}
    fallback="Booking request"
    title={(request) => `Booking request of ${request.guestName}`}
    back={["/booking/requests", "All booking requests"]}
  >
    {(request, reload) => <RequestContent request={request} reload={reload} />}
  </RecordPage>
)
