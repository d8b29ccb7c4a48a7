/**
 * The /ui/api constants the web page needs at run time, in a module that loads no zod: the page imports only
 * these as values (everything else from `@notify/contracts/ui` is a type), so its bundle ships no schema library.
 * The router validates with the same constants (packages/router/src/config/records.ts).
 */

/** Smart switching strategies (spec 3, Smart switching), in the order the page lists them. */
export const SWITCH_STRATEGIES = ["off", "ordered", "sticky", "round_robin"] as const;
export type SwitchStrategy = (typeof SWITCH_STRATEGIES)[number];

/** The most targets a combo has (spec 3: a combo has 1-8 targets; an alias has exactly one). */
export const MAX_COMBO_TARGETS = 8;

/** The five effort names (spec 3, Effort mapping 1), lowest first. */
export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];
