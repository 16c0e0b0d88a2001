/**
 * The sign-in throttle's schedule (issue 19, item 6): how long one (e-mail address, client address) pair waits after
 * its n-th consecutive failed sign-in. Pure; `OperatorSessionRepository.admitSignIn` applies it in PostgreSQL.
 *
 * Failures are counted per pair, never per account alone, so a guesser at one address never slows the operator at
 * another (OWASP Authentication Cheat Sheet, "Account Lockout": a lockout anyone can trigger is a denial of service;
 * throttle with growing delays instead). The first {@link FREE_FAILURES} failures cost nothing; each further one
 * doubles the wait, from {@link FIRST_DELAY_SECONDS} up to {@link MAX_DELAY_SECONDS}. A successful sign-in forgets the
 * pair's failures; so does {@link FAILURE_MEMORY_SECONDS} without a failure.
 *
 * There is no per-account ceiling: any ceiling that stops guesses spread over many addresses also stops the operator
 * at an address with no failures, which is the lockout this replaces. Spread guessing meets argon2id on every
 * admitted attempt and the pair delays at each address, and is visible in the audit log (`operator.sign_in_failed`).
 */

/** Consecutive failures of one pair that cost no wait: 4. */
export const FREE_FAILURES = 4
/** The wait after the first failure beyond {@link FREE_FAILURES}, in seconds: 30. It doubles with each further failure. */
export const FIRST_DELAY_SECONDS = 30
/** The longest wait, in seconds: 1 hour. */
export const MAX_DELAY_SECONDS = 60 * 60
/** A pair whose last failure is this old (seconds: 24 hours) starts again from no failures. */
export const FAILURE_MEMORY_SECONDS = 24 * 60 * 60

/**
 * The wait in whole seconds after a pair's `failures`-th consecutive failure (`failures` ≥ 1) before its next
 * attempt is admitted: 0 for the first {@link FREE_FAILURES}, then 30, 60, 120, … seconds, at most
 * {@link MAX_DELAY_SECONDS}.
 */
export const delaySeconds = (failures: number): number =>
  failures <= FREE_FAILURES ? 0 : Math.min(FIRST_DELAY_SECONDS * 2 ** Math.min(failures - FREE_FAILURES - 1, 30), MAX_DELAY_SECONDS)

/**
 * The schedule as a list: element `n − 1` is {@link delaySeconds}(n), up to the first failure count whose wait is
 * the maximum (every later count waits as long). For the SQL, which indexes it with `least(n, length)`.
 */
export const delaySchedule: ReadonlyArray<number> = (() => {
  const schedule: Array<number> = []
  for (let failures = 1; schedule.at(-1) !== MAX_DELAY_SECONDS; failures++) schedule.push(delaySeconds(failures))
  return schedule
})()
