/** The provider recommends 5-10 selfies; more than this only slows training and bloats requests. */
export const MAX_SELFIES = 20;

/** Styles per pipeline: far more than any catalogue offers, small enough to keep requests and answers small. */
export const MAX_STYLES = 100;

/** No stage may be given longer than this: a deadline is a timer in workflow history, not a wish. */
export const MAX_DEADLINE_MS = 7 * 24 * 60 * 60 * 1000;

/** No polling wait may be longer than this. */
export const MAX_POLL_INTERVAL_MS = 60 * 60 * 1000;
