/**
 * An organization's team in the console (issue 25, item 5): operators with roles, single-use invitations, and each
 * operator's own account (password, sessions, TOTP second factor with recovery codes).
 *
 * Roles: `owner` may change anything, the team included; `admin` may change everything but owners (it invites,
 * re-roles and removes admins and read-only operators); `read_only` may change nothing but their own account. The
 * server enforces this on every change (403), whatever the page shows: every mutating console endpoint outside
 * `/api/account`, `/api/session` and `/api/invitation` is refused to a read-only operator. An organization always
 * keeps one owner: the last one can't be demoted or removed (400 `VALIDATION_FAILED`).
 *
 * Invitations: a link `ADMIN_URL/invitation#<token>` (256-bit random; the database keeps its SHA-256 only; the
 * fragment never reaches a server log) valid for {@link INVITE_VALID_DAYS} days and once: accepting it makes the
 * operator with the invited role, and it can't be used again (404 thereafter, as when revoked or expired).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { CsrfProtection, JsonPayload, OperatorAuthentication, OperatorView, OrganizationSummary } from "./AdminSession.js"
import { Forbidden, NotFound } from "./Problem.js"
import { body } from "./Request.js"
import { Timestamp } from "./Values.js"

/** How long an invitation link lasts: 7 days. */
export const INVITE_VALID_DAYS = 7
/** How many recovery codes an operator gets at a time. */
export const RECOVERY_CODE_COUNT = 10
/** A new password's length, in characters: 12 to 1024. */
export const PASSWORD_MIN_LENGTH = 12

export const OperatorRole = Schema.Literal("owner", "admin", "read_only")
export type OperatorRole = typeof OperatorRole.Type

const Email = Schema.String.pipe(
  Schema.trimmed({ message: () => "remove the spaces around the address" }),
  Schema.minLength(3, { message: () => "enter an e-mail address" }),
  Schema.maxLength(320, { message: () => "must be at most 320 characters" }),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "enter an e-mail address such as name@example.com" })
)

const NewPassword = Schema.String.pipe(
  Schema.minLength(PASSWORD_MIN_LENGTH, { message: () => `must be at least ${PASSWORD_MIN_LENGTH} characters` }),
  Schema.maxLength(1024, { message: () => "must be at most 1024 characters" })
)

const Password = Schema.String.pipe(
  Schema.minLength(1, { message: () => "enter your password" }),
  Schema.maxLength(1024, { message: () => "must be at most 1024 characters" })
)

/** A TOTP code (6 digits) or, at sign-in, a recovery code (`xxxxx-xxxxx`). */
const Code = Schema.String.pipe(
  Schema.minLength(1, { message: () => "enter the code" }),
  Schema.maxLength(32, { message: () => "must be at most 32 characters" })
)

const Token = Schema.String.pipe(
  Schema.minLength(1, { message: () => "the invitation link has no token" }),
  Schema.maxLength(128, { message: () => "the invitation link is not valid" })
)

const strict = { parseOptions: { errors: "all" as const } }

export class TeamMember extends Schema.Class<TeamMember>("TeamMember")({
  id: Schema.UUID,
  email: Schema.String,
  name: Schema.String,
  role: OperatorRole,
  secondFactor: Schema.Boolean,
  createdAt: Timestamp
}) {}

export class InviteView extends Schema.Class<InviteView>("InviteView")({
  id: Schema.UUID,
  email: Schema.String,
  role: OperatorRole,
  invitedBy: Schema.String,
  createdAt: Timestamp,
  expiresAt: Timestamp
}) {}

export class TeamView extends Schema.Class<TeamView>("TeamView")({
  operators: Schema.Array(TeamMember),
  /** Invitations neither accepted, revoked nor expired. */
  invites: Schema.Array(InviteView)
}) {}

export class InviteRequest extends Schema.Class<InviteRequest>("InviteRequest")(
  Schema.Struct({ email: Email, role: OperatorRole }).annotations(strict)
) {}

/** A new invitation and its link, shown this once (only the token's SHA-256 is kept). */
export class InviteCreated extends Schema.Class<InviteCreated>("InviteCreated")({
  invite: InviteView,
  url: Schema.String
}) {}

export class RoleRequest extends Schema.Class<RoleRequest>("RoleRequest")(Schema.Struct({ role: OperatorRole })) {}

const OperatorPath = Schema.Struct({ operatorId: Schema.UUID })
const InvitePath = Schema.Struct({ inviteId: Schema.UUID })
const SessionPath = Schema.Struct({ sessionId: Schema.UUID })

/** The team: list, invite, revoke an invitation, change a role, remove an operator (each audited). */
export class TeamGroup extends HttpApiGroup.make("team")
  .add(
    HttpApiEndpoint.get("team", "/api/operators")
      .addSuccess(TeamView)
      .annotate(OpenApi.Description, "The organization's active operators and its open invitations.")
  )
  .add(
    HttpApiEndpoint.post("invite", "/api/operator-invites")
      .setPayload(body(InviteRequest))
      .addSuccess(InviteCreated, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Invites an operator by a single-use link valid for 7 days (shown once). 400 `VALIDATION_FAILED` when the " +
          "address already has an operator or an open invitation, or when an admin invites an owner; 403 for a " +
          "read-only operator."
      )
  )
  .add(
    HttpApiEndpoint.del("revokeInvite", "/api/operator-invites/:inviteId")
      .setPath(InvitePath)
      .addSuccess(Schema.Void, { status: 204 })
      .addError(NotFound)
      .annotate(OpenApi.Description, "Revokes an open invitation: its link stops working. 404 when not open or not the organization's.")
  )
  .add(
    HttpApiEndpoint.put("changeRole", "/api/operators/:operatorId/role")
      .setPath(OperatorPath)
      .setPayload(body(RoleRequest))
      .addSuccess(TeamMember)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Changes an operator's role. 400 `VALIDATION_FAILED` for the last owner's demotion or when an admin touches " +
          "an owner; 404 when not the organization's operator."
      )
  )
  .add(
    HttpApiEndpoint.del("remove", "/api/operators/:operatorId")
      .setPath(OperatorPath)
      .addSuccess(Schema.Void, { status: 204 })
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Removes an operator (disabled, every session ended). 400 `VALIDATION_FAILED` for the last owner, for " +
          "yourself, or when an admin removes an owner; 404 when not the organization's operator."
      )
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}

export class InvitationRequest extends Schema.Class<InvitationRequest>("InvitationRequest")(
  Schema.Struct({ token: Token })
) {}

export class InvitationView extends Schema.Class<InvitationView>("InvitationView")({
  email: Schema.String,
  role: OperatorRole,
  organization: OrganizationSummary,
  expiresAt: Timestamp
}) {}

export class AcceptInvitationRequest extends Schema.Class<AcceptInvitationRequest>("AcceptInvitationRequest")(
  Schema.Struct({
    token: Token,
    name: Schema.String.pipe(
      Schema.trimmed({ message: () => "remove the spaces around the name" }),
      Schema.minLength(1, { message: () => "enter your name" }),
      Schema.maxLength(200, { message: () => "must be at most 200 characters" })
    ),
    password: NewPassword
  }).annotations(strict)
) {}

/**
 * An invitation read and accepted without a session (the token is the credential; it travels in the body, never in
 * a URL a log keeps). 404 for a token that is unknown, used, revoked or expired, without saying which.
 */
export class InvitationGroup extends HttpApiGroup.make("invitation")
  .add(
    HttpApiEndpoint.post("read", "/api/invitation")
      .setPayload(body(InvitationRequest))
      .addSuccess(InvitationView)
      .addError(NotFound)
      .addError(Forbidden)
      .annotate(OpenApi.Description, "What an invitation link offers. 404 when unknown, used, revoked or expired; 403 from a foreign Origin.")
  )
  .add(
    HttpApiEndpoint.post("accept", "/api/invitation/accept")
      .setPayload(body(AcceptInvitationRequest))
      .addSuccess(OperatorView, { status: 201 })
      .addError(NotFound)
      .addError(Forbidden)
      .annotate(
        OpenApi.Description,
        "Accepts an invitation once: the operator is made with the invited role and the chosen name and password " +
          "(at least 12 characters), then signs in. 404 when the link is unknown, used, revoked or expired; 400 " +
          "`VALIDATION_FAILED` when the address meanwhile has an operator; 403 from a foreign Origin."
      )
  )
  .middleware(JsonPayload) {}

export class AccountView extends Schema.Class<AccountView>("AccountView")({
  operator: OperatorView,
  secondFactor: Schema.Boolean,
  recoveryCodesLeft: Schema.Int
}) {}

export class PasswordChange extends Schema.Class<PasswordChange>("PasswordChange")(
  Schema.Struct({ currentPassword: Password, newPassword: NewPassword }).annotations(strict)
) {}

export class PasswordConfirmation extends Schema.Class<PasswordConfirmation>("PasswordConfirmation")(
  Schema.Struct({ password: Password })
) {}

export class CodeRequest extends Schema.Class<CodeRequest>("CodeRequest")(Schema.Struct({ code: Code })) {}

export class SessionItem extends Schema.Class<SessionItem>("SessionItem")({
  id: Schema.UUID,
  createdAt: Timestamp,
  lastSeenAt: Timestamp,
  expiresAt: Timestamp,
  clientAddress: Schema.optional(Schema.String),
  /** The session this request came with. */
  current: Schema.Boolean
}) {}

export class SessionList extends Schema.Class<SessionList>("SessionList")({ items: Schema.Array(SessionItem) }) {}

/** A TOTP enrolment: the secret (base32) and its `otpauth://totp/…` URI for a QR code, until confirmed by a code. */
export class TotpEnrolment extends Schema.Class<TotpEnrolment>("TotpEnrolment")({
  secret: Schema.String,
  uri: Schema.String
}) {}

/** Ten single-use recovery codes, shown this once (only their SHA-256 is kept). */
export class RecoveryCodes extends Schema.Class<RecoveryCodes>("RecoveryCodes")({ codes: Schema.Array(Schema.String) }) {}

/**
 * The signed-in operator's own account, open to every role: password, sessions, second factor. Each change is
 * audited; changing the password ends every other session.
 */
export class AccountGroup extends HttpApiGroup.make("account")
  .add(HttpApiEndpoint.get("account", "/api/account").addSuccess(AccountView))
  .add(
    HttpApiEndpoint.put("changePassword", "/api/account/password")
      .setPayload(body(PasswordChange))
      .addSuccess(Schema.Void, { status: 204 })
      .annotate(
        OpenApi.Description,
        "Changes your password and ends your other sessions. 400 `VALIDATION_FAILED` when the current password is " +
          "wrong (`/currentPassword`) or the new one is too short."
      )
  )
  .add(HttpApiEndpoint.get("sessions", "/api/account/sessions").addSuccess(SessionList))
  .add(
    HttpApiEndpoint.del("endSession", "/api/account/sessions/:sessionId")
      .setPath(SessionPath)
      .addSuccess(Schema.Void, { status: 204 })
      .addError(NotFound)
      .annotate(OpenApi.Description, "Ends one of your sessions. 404 when it is not your live session.")
  )
  .add(
    HttpApiEndpoint.del("endOtherSessions", "/api/account/sessions")
      .addSuccess(Schema.Void, { status: 204 })
      .annotate(OpenApi.Description, "Ends every session of yours but this one.")
  )
  .add(
    HttpApiEndpoint.post("enrolTotp", "/api/account/totp")
      .addSuccess(TotpEnrolment, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Starts a TOTP enrolment (SHA-1, 6 digits, 30 s): a new secret, kept sealed until a code confirms it. 400 " +
          "`VALIDATION_FAILED` when a second factor is already on."
      )
  )
  .add(
    HttpApiEndpoint.post("confirmTotp", "/api/account/totp/confirm")
      .setPayload(body(CodeRequest))
      .addSuccess(RecoveryCodes)
      .annotate(
        OpenApi.Description,
        "Confirms the enrolment with a current code: the second factor is on, and ten recovery codes are answered " +
          "once. 400 `VALIDATION_FAILED` for a wrong code or no enrolment."
      )
  )
  .add(
    HttpApiEndpoint.post("disableTotp", "/api/account/totp/disable")
      .setPayload(body(PasswordConfirmation))
      .addSuccess(Schema.Void, { status: 204 })
      .annotate(OpenApi.Description, "Turns the second factor off (recovery codes dropped). 400 `VALIDATION_FAILED` for a wrong password.")
  )
  .add(
    HttpApiEndpoint.post("newRecoveryCodes", "/api/account/recovery-codes")
      .setPayload(body(PasswordConfirmation))
      .addSuccess(RecoveryCodes)
      .annotate(
        OpenApi.Description,
        "Replaces the recovery codes with ten new ones. 400 `VALIDATION_FAILED` for a wrong password or without a second factor."
      )
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
