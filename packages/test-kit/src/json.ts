/** A JSON value as tests read it: loosely, field by field, without a cast at every step. */
// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely.
export type Json = any;
