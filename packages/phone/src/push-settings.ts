/**
 * Less noise on the phone (issue 37, item 4; docs/phone.md): settings the page's notifications toggle writes and the
 * service worker reads, in the phone's IndexedDB. Absent means on: a person with five agents running wants one
 * notification that counts the open questions, and one "finished" notification per session.
 */

/** The tag of the one notification that counts the open questions. */
export const QUESTIONS_TAG = "questions";
/** While two or more questions are open, one notification counts them (false: one notification per question). */
export const COLLAPSE_SETTING = "collapse-questions";
/** A session's next "finished" notification replaces its last (false: each one stays). */
export const REPLACE_FINISHED_SETTING = "replace-finished";
/** What the page posts to the service worker when it changed cards: the count is made again. */
export const RECOUNT_MESSAGE = "recount";
