import type { AnsweredVia } from "../enums.js";
import { answerSurfaceOfSource } from "./answer-surfaces.js";
import type { TIMELINE_SEND_REASONS } from "./constants.js";
import type { TimelineEntry, TimelineRoute } from "./timeline.js";

/**
 * The delivery timeline in words (docs/routing.md, "The delivery timeline"). Its own module with type imports only,
 * so the web page takes these functions without the schemas' zod (subpath `@notify/contracts/ui-timeline-words`).
 */

/** `Phone (ntfy)`; a deleted route is `a deleted route`. */
export function timelineRouteName(route: TimelineRoute): string {
  if (route.name === undefined) return "a deleted route";
  return route.provider_kind ? `${route.name} (${route.provider_kind})` : route.name;
}

/** Who answered, in words (the inbox card says it the same way). */
export function answeredFrom(source: string | undefined, via: AnsweredVia | undefined): string {
  if (via === "ui") return "from this computer's web page";
  if (via === "toast") return "from a desktop notification";
  switch (source) {
    case undefined:
      return "";
    case "desktop":
      return "from a desktop notification";
    case "cli":
      return "from the command line";
    case "api":
      return "over the local API";
    default:
      // The phone and the chat apps: the surface registry's words (answer-surfaces.ts).
      return answerSurfaceOfSource(source)?.where ?? `by ${source}`;
  }
}

/**
 * The surface a follow-up reply came from, by the names docs/hooks.md ("Follow-ups") uses: the stored `source` keeps
 * the API's values (`relay` for the phone, `desktop` for this computer), the line names the surface.
 */
export function replySurface(source: string | undefined, via: AnsweredVia | undefined): string {
  if (via === "ui") return "web";
  if (via === "toast") return "toast";
  if (source === "relay") return "phone";
  return source ?? "Notify";
}

const HELD_BECAUSE: Record<string, string> = {
  present: " because you were at the computer",
  away: " because you were away",
};

/**
 * One entry as a plain-language line, without its time (the page shows the time beside it). `time` formats an
 * ISO time for the reader (the page: local hh:mm:ss). E.g. "Held for Phone (ntfy) until 12:02:00 because you were
 * at the computer", "Sent to Phone (ntfy) because you were away".
 */
export function timelineLine(entry: TimelineEntry, time: (iso: string) => string): string {
  switch (entry.event) {
    case "created":
      return entry.subject === "interaction" ? "Question asked" : "Notification created";
    case "held": {
      const route = timelineRouteName(entry.route);
      if (entry.reason === "quiet_hours") {
        return `Held for ${route}${entry.until ? ` until ${time(entry.until)}` : ""} (quiet hours)`;
      }
      if (entry.until === null) {
        const wanted = entry.presence === "away" ? "you were back at the computer" : "you were away";
        return `Held for ${route} until ${wanted}`;
      }
      const because = HELD_BECAUSE[entry.presence ?? ""] ?? (entry.reason === "delay" ? " (its delay)" : "");
      return `Held for ${route} until ${time(entry.until)}${because}`;
    }
    case "not_sent":
      return entry.reason === "settled"
        ? `Not sent to ${timelineRouteName(entry.route)}: settled before its time`
        : `Not sent to ${timelineRouteName(entry.route)}: the route or its provider was turned off`;
    case "delivery": {
      const route = timelineRouteName(entry.route);
      const failure =
        entry.last_status !== undefined
          ? `HTTP ${entry.last_status}`
          : entry.last_code !== undefined
            ? entry.last_code
            : "an error";
      switch (entry.outcome) {
        case "sending":
          return `Sending to ${route}`;
        case "retrying":
          return `Sending to ${route} failed (${failure}, ${tries(entry.attempts)})${
            entry.next_attempt_at ? `; next try at ${time(entry.next_attempt_at)}` : ""
          }`;
        case "failed":
          return `Could not send to ${route} (${failure}); gave up after ${tries(entry.attempts)}`;
        case "sent":
          return `Sent to ${route}${sentBecause(entry.because, entry.presence)}${
            entry.attempts > 1 ? ` (after ${tries(entry.attempts)})` : ""
          }`;
        default:
          return `Sending to ${route}`;
      }
    }
    case "receipt": {
      const via = timelineRouteName(entry.route);
      switch (entry.state) {
        case "fetched":
          return `Fetched by the phone (${via})`;
        case "shown":
          return `Shown on the phone (${via})`;
        default:
          return `Opened on the phone (${via})`;
      }
    }
    case "edited":
      return `Message in ${answerSurfaceOfSource(entry.surface)?.label ?? entry.surface} edited to show the outcome`;
    case "toast":
      if (entry.state === "shown") return "Shown as a desktop notification";
      switch (entry.reason) {
        case "expired":
          return "Desktop notification timed out";
        case "dismissed":
          return "Desktop notification dismissed";
        default:
          return "Desktop notification closed";
      }
    case "settled":
      switch (entry.status) {
        case "answered": {
          if (entry.follow_up) return `Reply from ${replySurface(entry.source, entry.answered_via)}: sent to the agent`;
          const what = entry.choice_label === undefined ? "Answered" : `Answered “${entry.choice_label}”`;
          const who = answeredFrom(entry.source, entry.answered_via);
          return who ? `${what} ${who}` : what;
        }
        case "expired":
          return entry.follow_up ? "No reply in the window: the turn ended" : "Expired without an answer";
        case "cancelled":
          // A follow-up is withdrawn when the session goes on without it (a prompt typed in the terminal).
          return entry.follow_up ? "Withdrawn: no reply needed" : "Cancelled by the agent";
        case "superseded":
          return "Replaced by a newer question";
        case "dismissed":
          return "Dismissed";
        case "resolved":
          return "Resolved";
        default:
          return "Settled";
      }
    default:
      return "";
  }
}

const tries = (attempts: number) => (attempts === 1 ? "1 try" : `${attempts} tries`);

function sentBecause(because: (typeof TIMELINE_SEND_REASONS)[number], state: string | undefined): string {
  switch (because) {
    case "presence":
      return state === "away"
        ? " because you were away"
        : state === "present"
          ? " because you were at the computer"
          : "";
    case "delay_elapsed":
      return " because it was still open after the delay";
    case "critical_in_quiet_hours":
      return " during quiet hours because it is critical";
    default:
      return "";
  }
}
