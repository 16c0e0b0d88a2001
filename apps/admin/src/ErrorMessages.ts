/**
 * The spec's codes (section 7.3) and the API's problems as sentences an operator can act on, and the `issues` of
 * a VALIDATION_FAILED problem mapped to the form fields they name (an issue's `path` is a JSON Pointer, RFC 6901;
 * its first segment is the field). Used by the console beside each field and above each form.
 */

/**
 * Readable messages of the codes the console's operations answer; others show the API's `detail` (a code whose
 * detail already names the reason for the operator, such as INTEGRATIONS_CONNECTION_NOT_SUPPORTED's missing role
 * or suspended installation), else {@link humanize}.
 */
const messages: Record<string, string> = {
  VALIDATION_FAILED: "Some fields need attention.",
  APPLICATION_SECRET_LIMIT_REACHED: "This Application already has 2 active secrets. Revoke one before issuing another.",
  APPLICATION_SECRET_NOT_FOUND: "That secret is not active any more: it was already revoked.",
  BILLING_INTEGRATION_NOT_CONFIGURED: "No billing integration is configured for the organization yet.",
  BILLING_INTEGRATION_GATE_NOT_DECLARED: "The billing integration has not declared the verification gate.",
  BILLING_INVOICE_STATUS_INVALID: "The invoice is not in a status that allows this.",
  BILLING_PROPOSAL_STATUS_INVALID: "The proposal is no longer awaiting verification.",
  BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED: "The proposal's charges were already invoiced; cancel the proposal.",
  BILLING_EXTERNAL_REFERENCE_ALREADY_USED: "That external reference is already used in the organization.",
  BILLING_INVOICE_RUN_NOT_CONTINUABLE: "The invoice run can't go on from its current status.",
  BILLING_CREDIT_NOTE_INVOICE_NOT_CREDITABLE: "This invoice can't be credited.",
  BILLING_CREDIT_EXCEEDS_LINE: "The credit is larger than what is left on the line.",
  BILLING_CREDIT_EXCEEDS_INVOICE: "The credit is larger than what is left on the invoice.",
  BILLING_CORRECTION_NOT_WITHDRAWABLE: "This correction can't be withdrawn any more.",
  CRM_SIGNING_ATTEMPT_LIVE: "The contract already has a signing attempt under way.",
  CRM_SIGNING_ATTEMPT_ENDED: "The signing attempt has already ended.",
  BOOKING_NOT_PENDING_APPROVAL: "The booking request is no longer waiting for approval.",
  BOOKING_APPROVAL_WINDOW_PASSED: "The time to approve this booking request has passed.",
  BOOKING_SLOT_TAKEN: "The time slot is already taken.",
  BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT: "The buffers must be whole multiples of the start increment.",
  BOOKING_PRICE_RULE_AMBIGUOUS: "Two price rules of the same unit claim the same time on one weekday. Split their days or hours.",
  BOOKING_RESOURCE_CURRENCY_MISMATCH: "An add-on product in another currency can't be offered with this resource.",
  INTEGRATIONS_APP_ALREADY_INSTALLED: "The connector app is already installed in the organization.",
  INTEGRATIONS_APP_ALREADY_EXISTS: "A connector app with this app id is already registered.",
  INTEGRATIONS_APP_INVALID: "The connector app's details break a rule: see the field marked.",
  INTEGRATIONS_CONTEXT_LEVEL_MISMATCH: "One of the operational contexts can't be granted here.",
  INTEGRATIONS_ROLE_NOT_GRANTABLE: "That role can't be granted to this installation.",
  INTEGRATIONS_CONFIGURATION_INVALID: "The configuration doesn't fit its kind or installation: see the field marked.",
  INTEGRATIONS_CONFIGURATION_NOT_FOUND: "The integration configuration does not exist, or it belongs to another organization.",
  INTEGRATIONS_POINT_ALREADY_FILLED:
    "Another ready configuration of this kind already serves one of these operational contexts. Disconnect it first."
}

/** Details that say no more than "Some fields need attention.": not repeated after it. */
const genericDetails = new Set(["The request is not valid; see issues.", "The request is not valid.", "Some fields need attention."])

/** Messages by HTTP status for problems without a code. */
const byStatus: Record<number, string> = {
  401: "Your session has ended. Sign in again.",
  403: "The console refused the request. Reload the page and try again.",
  404: "The record does not exist, or it belongs to another organization.",
  409: "Someone else changed this record meanwhile. Reload and try again.",
  413: "The request is too large.",
  429: "Too many attempts. Wait a moment and try again.",
  500: "The service failed. Try again; quote the request id if it persists."
}

/** `BILLING_INVOICE_STATUS_INVALID` → "Billing invoice status invalid." */
export const humanize = (code: string): string => {
  const words = code.toLowerCase().split("_").join(" ")
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`
}

/** The problem's members the console reads. */
export interface ProblemLike {
  readonly status: number
  readonly code?: string | undefined
  readonly detail?: string | undefined
  readonly issues?: ReadonlyArray<{ readonly path: string; readonly message: string }> | undefined
}

/** The sentence to show for a problem: its code's message, else the API's detail, else its status's. */
export const messageFor = (problem: ProblemLike): string => {
  if (problem.code !== undefined && problem.code !== "VALIDATION_FAILED") {
    return messages[problem.code] ?? problem.detail ?? humanize(problem.code)
  }
  if (problem.code === "VALIDATION_FAILED") {
    // The refusal's own sentence ("The invoice run's period or date is not valid.") beside the general one.
    const detail = problem.detail?.trim()
    return detail === undefined || detail === "" || genericDetails.has(detail) ? messages["VALIDATION_FAILED"]! : `${messages["VALIDATION_FAILED"]!} ${detail}`
  }
  return byStatus[problem.status] ?? problem.detail ?? `The request failed (HTTP ${problem.status}).`
}

/**
 * The schema's and the services' issue messages as plain sentences an operator reads beside a field (issue 25:
 * booking setup showed `Expected an integer, actual NaN`): known phrasings become an instruction ("Enter a whole
 * number."), a decoder's raw "Expected …, actual …" never shows its value, and any other message starts with a
 * capital and ends with a full stop ("is not an operational context of your organization" → "This is not …").
 */
const phrases: ReadonlyArray<readonly [RegExp, (match: RegExpExecArray) => string]> = [
  [/^is required$/, () => "This is required."],
  [/^must not be (blank|empty)$/, () => "Enter a value: it can't be blank."],
  [/^must be a UUID$|^Expected a Universally Unique Identifier, actual [\s\S]*$/, () => "Choose one."],
  [/^must be an integer$|^Expected an integer, actual [\s\S]*$/, () => "Enter a whole number."],
  [/^must be a number$|^Expected a (finite )?number, actual [\s\S]*$|^Expected number, actual [\s\S]*$/, () => "Enter a number."],
  [/^must be a string$/, () => "Enter text."],
  [/^must be true or false$/, () => "Choose yes or no."],
  [/^must be one of: ([\s\S]*)$/, (match) => `Choose one of: ${match[1]}.`],
  [/^must be an integer from (-?\d+) to (-?\d+)$/, (match) => `Enter a whole number from ${match[1]} to ${match[2]}.`],
  [/^Expected [\s\S]*, actual [\s\S]*$/, () => "This value is not valid."]
]

/** An issue's message as a plain sentence (see {@link phrases}). */
export const plainSentence = (message: string): string => {
  const text = message.trim()
  for (const [pattern, sentence] of phrases) {
    const found = pattern.exec(text)
    if (found !== null) return sentence(found)
  }
  if (text === "") return "This value is not valid."
  const subject = /^(is|has|are|names|was) /.test(text) ? `This ${text}` : `${text.charAt(0).toUpperCase()}${text.slice(1)}`
  return /[.!?…]$/.test(subject) ? subject : `${subject}.`
}

/** RFC 6901: `~1` → `/`, `~0` → `~`. */
const unescape = (segment: string) => segment.replaceAll("~1", "/").replaceAll("~0", "~")

/**
 * Field messages of a VALIDATION_FAILED problem: the first pointer segment names the field ("/contextIds/2" →
 * `contextIds`); the whole-input path "" becomes `_form`. A field with several issues keeps the first.
 */
export const fieldMessages = (problem: ProblemLike | undefined): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const issue of problem?.issues ?? []) {
    const field = issue.path === "" ? "_form" : unescape(issue.path.split("/")[1] ?? "")
    out[field] ??= plainSentence(issue.message)
  }
  return out
}

/**
 * The message of the first issue at `pointer` or inside it (`/priceRules/0` holds `/priceRules/0/amountMinorUnits`),
 * for fields nested in rows of a form; with `exact`, only issues at `pointer` itself.
 */
export const messageAt = (problem: ProblemLike | undefined, pointer: string, exact = false): string | undefined => {
  const message = problem?.issues?.find((issue) => issue.path === pointer || (!exact && issue.path.startsWith(`${pointer}/`)))?.message
  return message === undefined ? undefined : plainSentence(message)
}
