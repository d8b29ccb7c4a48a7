import {
  QUIET_DAYS,
  type QuietDay,
  ROUTING_MESSAGES,
  type RouteWhen,
  routingSummary,
} from "@notify/contracts/routing-summary";
import type { OutboundProvider, OutboundRoute, OutboundRouteInput } from "@notify/contracts/ui";
import { PRIORITIES, type Priority } from "@notify/contracts/ui-constants";
import { useId, useState } from "react";
import { ApiError, api } from "../api/client.js";
import { messageOf } from "../use-load.js";

const DAY_LABELS: Record<QuietDay, string> = {
  mon: "Mon",
  tue: "Tue",
  wed: "Wed",
  thu: "Thu",
  fri: "Fri",
  sat: "Sat",
  sun: "Sun",
};

/** The three presences a route can wait for (docs/routing.md, The policy in plain words), with what each means. */
const WHEN_CHOICES: { value: RouteWhen; label: string; hint: string }[] = [
  { value: "always", label: "Always", hint: "Whether or not you are at this computer." },
  {
    value: "away",
    label: "Only when I'm away",
    hint: "Sent while the screen is locked or idle; otherwise held until you leave or the delay passes.",
  },
  {
    value: "present",
    label: "Only when I'm at this computer",
    hint: "Sent while you use this computer; otherwise held until you are back or the delay passes.",
  },
];

type DelayUnit = "minutes" | "seconds";

interface Draft {
  name: string;
  provider: string;
  minimumPriority: string;
  typeId: string;
  project: string;
  agent: string;
  includeMessage: boolean;
  when: RouteWhen;
  /** As typed; empty means at once. */
  delay: string;
  delayUnit: DelayUnit;
  quiet: boolean;
  start: string;
  end: string;
  days: QuietDay[];
  allowCritical: boolean;
  /** Digest window in seconds, as typed; empty means one message per item (docs/outbound.md, "Less noise"). */
  digest: string;
  replaceFinished: boolean;
}

const EMPTY: Draft = {
  name: "",
  provider: "",
  minimumPriority: "low",
  typeId: "",
  project: "",
  agent: "",
  includeMessage: true,
  when: "always",
  delay: "",
  delayUnit: "minutes",
  quiet: false,
  start: "22:00",
  end: "07:00",
  days: [...QUIET_DAYS],
  allowCritical: false,
  digest: "",
  replaceFinished: true,
};

/** A stored delay in the unit it reads best in: whole minutes as minutes, anything else as seconds. */
function delayFields(seconds: number | undefined): Pick<Draft, "delay" | "delayUnit"> {
  if (!seconds) return { delay: "", delayUnit: "minutes" };
  return seconds % 60 === 0
    ? { delay: String(seconds / 60), delayUnit: "minutes" }
    : { delay: String(seconds), delayUnit: "seconds" };
}

const draftOf = (route: OutboundRoute | undefined, providers: OutboundProvider[]): Draft =>
  route
    ? {
        name: route.name,
        provider: providers.find((provider) => provider.id === route.providerId)?.name ?? "",
        minimumPriority: route.minimumPriority,
        typeId: route.typeId ?? "",
        project: route.project ?? "",
        agent: route.agent ?? "",
        includeMessage: route.includeMessage,
        when: route.when ?? "always",
        ...delayFields(route.delay_seconds),
        quiet: route.quiet_hours !== undefined,
        start: route.quiet_hours?.start ?? EMPTY.start,
        end: route.quiet_hours?.end ?? EMPTY.end,
        days: route.quiet_hours?.days ? [...route.quiet_hours.days] : [...QUIET_DAYS],
        allowCritical: route.quiet_hours?.allow_critical ?? false,
        digest: route.digest_seconds ? String(route.digest_seconds) : "",
        replaceFinished: route.replace_finished !== false,
      }
    : EMPTY;

/** The digest window in seconds (null: one message per item), or undefined when the text is not a number. */
function digestSeconds(draft: Draft): number | null | undefined {
  const text = draft.digest.trim();
  if (text === "") return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * The delay in whole seconds (null: at once), or undefined when the text is not a number at all (it cannot be
 * sent: JSON has no NaN). Anything else goes to the broker, which says what is wrong in its own words.
 */
function delaySeconds(draft: Draft): number | null | undefined {
  const text = draft.delay.trim();
  if (text === "") return null;
  const value = Number(text.replace(",", "."));
  if (!Number.isFinite(value)) return undefined;
  // Rounded to a millionth so that 0.1 min reads 6 s, not 6.000000000000001 s; a fraction of a second stays one.
  return Number((draft.delayUnit === "minutes" ? value * 60 : value).toFixed(6));
}

type QuietBody = NonNullable<OutboundRouteInput["quiet_hours"]>;

function quietWindow(draft: Draft): QuietBody | null {
  if (!draft.quiet) return null;
  return {
    start: draft.start.trim(),
    end: draft.end.trim(),
    // Every day is the default: left out, as `notify apply` files leave it out.
    ...(draft.days.length === QUIET_DAYS.length ? {} : { days: QUIET_DAYS.filter((day) => draft.days.includes(day)) }),
    ...(draft.allowCritical ? { allow_critical: true } : {}),
  };
}

/** Where a broker refusal belongs: the input of the option its `field` names (`quiet_hours.end`), else the form. */
type Field = "delay" | "when" | "start" | "end" | "days" | "quiet" | "digest" | "form";
function fieldOf(failure: unknown): Field {
  const path = failure instanceof ApiError ? (failure.field ?? "") : "";
  if (path === "delay_seconds") return "delay";
  if (path === "when") return "when";
  if (path === "quiet_hours.start") return "start";
  if (path === "quiet_hours.end") return "end";
  if (path.startsWith("quiet_hours.days")) return "days";
  if (path.startsWith("quiet_hours")) return "quiet";
  if (path === "digest_seconds") return "digest";
  return "form";
}

/**
 * A new outbound route with its gates (docs/outbound.md, "Delivery rules", rule 2; new routes start disabled) and its
 * delivery options (docs/routing.md), or an edit of one: an emptied gate is cleared (`null`), and so is a delivery
 * option put back to its default. A refusal is shown next to the field it names, in the broker's words.
 */
export function RouteForm({
  providers,
  route,
  onSaved,
}: {
  providers: OutboundProvider[];
  route?: OutboundRoute;
  onSaved: (name: string) => void;
}) {
  const [draft, setDraft] = useState(() => draftOf(route, providers));
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<{ field: Field; message: string }>();
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const uid = useId();
  const ids = {
    delay: `${uid}-delay`,
    start: `${uid}-start`,
    end: `${uid}-end`,
    quiet: `${uid}-quiet`,
    when: `${uid}-when-always`,
    days: `${uid}-day-mon`,
    digest: `${uid}-digest`,
    form: `${uid}-name`,
  };
  const errorFor = (field: Field) =>
    error?.field === field ? (
      <p id={`${uid}-${field}-error`} className="error field-error" role="alert">
        {error.message}
      </p>
    ) : null;
  // The field a refusal names is marked invalid and tied to the message read with it.
  const invalid = (field: Field, describedBy?: string) => {
    const errorId = error?.field === field ? `${uid}-${field}-error` : undefined;
    const described = [describedBy, errorId].filter(Boolean).join(" ");
    return {
      ...(errorId ? { "aria-invalid": true as const } : {}),
      ...(described ? { "aria-describedby": described } : {}),
    };
  };
  // A group (radios, day boxes) is not marked invalid itself: its message is read with it.
  const describedGroup = (field: Field, hint?: string) => {
    const described = [hint, error?.field === field ? `${uid}-${field}-error` : undefined].filter(Boolean).join(" ");
    return described ? { "aria-describedby": described } : {};
  };
  const delay = delaySeconds(draft);
  const digest = digestSeconds(draft);
  const preview =
    delay === undefined || (delay !== null && delay < 0)
      ? undefined
      : routingSummary({
          delay_seconds: delay,
          when: draft.when,
          quiet_hours: quietWindow(draft),
          digest_seconds: digest !== undefined && digest !== null && digest > 0 ? digest : null,
        });
  const refuse = (field: Field, message: string) => {
    setError({ field, message });
    // Keyboard users land on the field to fix (a radio group: its first choice).
    requestAnimationFrame(() => document.getElementById(field === "form" ? ids.form : ids[field])?.focus());
  };

  return (
    <details
      className={route ? "edit-form" : "add-form"}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        {route ? (
          <>
            Edit <span className="visually-hidden">route {route.name}</span>
          </>
        ) : (
          "Add a route"
        )}
      </summary>
      <form
        className="stacked-form route-form"
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          if (delay === undefined) {
            refuse("delay", `delay_seconds: ${ROUTING_MESSAGES.delayWhole}`);
            return;
          }
          if (digest === undefined) {
            refuse("digest", `digest_seconds: ${ROUTING_MESSAGES.digestWhole}`);
            return;
          }
          try {
            const gate = (value: string) => (value ? value : route ? null : undefined);
            const body: OutboundRouteInput = {
              name: draft.name,
              provider: draft.provider || providers[0]?.name || "",
              minimumPriority: draft.minimumPriority as Priority,
              includeMessage: draft.includeMessage,
              // A default is sent as null: the broker stores nothing for it (an edit puts the default back).
              delay_seconds: delay === 0 ? null : delay,
              when: draft.when === "always" ? null : draft.when,
              quiet_hours: quietWindow(draft),
              digest_seconds: digest === 0 ? null : digest,
              replace_finished: draft.replaceFinished ? null : false,
            };
            for (const field of ["typeId", "project", "agent"] as const) {
              const value = gate(draft[field]);
              if (value !== undefined) body[field] = value;
            }
            await api.outbound.saveRoute(body, route?.id);
            setError(undefined);
            if (route) setOpen(false);
            else setDraft(EMPTY);
            onSaved(draft.name);
          } catch (failure) {
            refuse(fieldOf(failure), messageOf(failure));
          }
        }}
      >
        <label>
          <span>Route name</span>
          <input id={ids.form} required value={draft.name} onChange={(e) => set({ name: e.target.value })} />
        </label>
        <label>
          <span>Provider</span>
          <select value={draft.provider} onChange={(e) => set({ provider: e.target.value })}>
            {providers.map((provider) => (
              <option key={provider.id} value={provider.name}>
                {provider.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Minimum priority</span>
          <select value={draft.minimumPriority} onChange={(e) => set({ minimumPriority: e.target.value })}>
            {PRIORITIES.map((priority) => (
              <option key={priority}>{priority}</option>
            ))}
          </select>
        </label>
        <label>
          <span>Only type (optional)</span>
          <input value={draft.typeId} onChange={(e) => set({ typeId: e.target.value })} />
        </label>
        <label>
          <span>Only project (optional)</span>
          <input value={draft.project} onChange={(e) => set({ project: e.target.value })} />
        </label>
        <label>
          <span>Only agent (optional)</span>
          <input value={draft.agent} onChange={(e) => set({ agent: e.target.value })} />
        </label>
        <label className="check-row">
          <input
            type="checkbox"
            checked={draft.includeMessage}
            onChange={(e) => set({ includeMessage: e.target.checked })}
          />
          <span>Include the message (off: only the title leaves the machine)</span>
        </label>

        <fieldset className="delivery-fields">
          <legend>Delivery</legend>
          <fieldset className="when-choices" {...describedGroup("when")}>
            <legend>When</legend>
            {WHEN_CHOICES.map((choice) => (
              <div key={choice.value} className="choice-row">
                <label className="check-row">
                  <input
                    id={`${uid}-when-${choice.value}`}
                    type="radio"
                    name={`${uid}-when`}
                    value={choice.value}
                    checked={draft.when === choice.value}
                    aria-describedby={`${uid}-when-${choice.value}-hint`}
                    onChange={() => set({ when: choice.value })}
                  />
                  <span>{choice.label}</span>
                </label>
                <p id={`${uid}-when-${choice.value}-hint`} className="help">
                  {choice.hint}
                </p>
              </div>
            ))}
            {errorFor("when")}
          </fieldset>

          <div className="delay-field">
            <label htmlFor={ids.delay}>Delay</label>
            <div className="field-pair">
              <input
                id={ids.delay}
                type="text"
                inputMode="decimal"
                autoComplete="off"
                size={6}
                placeholder="none"
                value={draft.delay}
                onChange={(e) => set({ delay: e.target.value })}
                {...invalid("delay", `${uid}-delay-hint`)}
              />
              <select
                aria-label="Delay unit"
                value={draft.delayUnit}
                onChange={(e) => set({ delayUnit: e.target.value as DelayUnit })}
              >
                <option value="minutes">minutes</option>
                <option value="seconds">seconds</option>
              </select>
            </div>
            <p id={`${uid}-delay-hint`} className="help">
              Sent only if still open (not answered or dismissed) this long after it arrived. Empty: at once.
            </p>
            {errorFor("delay")}
          </div>

          <div className="quiet-switch">
            <label className="check-row">
              <input
                id={ids.quiet}
                type="checkbox"
                checked={draft.quiet}
                onChange={(e) => set({ quiet: e.target.checked })}
                {...invalid("quiet", `${uid}-quiet-hint`)}
              />
              <span>Quiet hours</span>
            </label>
            <p id={`${uid}-quiet-hint`} className="help">
              Nothing is sent inside the window (this computer's time); what is still open at its end is sent then.
            </p>
            {errorFor("quiet")}
          </div>
          {draft.quiet && (
            <div className="quiet-fields">
              <div className="field-pair">
                <label>
                  <span>From</span>
                  <input
                    id={ids.start}
                    type="text"
                    inputMode="numeric"
                    autoComplete="off"
                    size={5}
                    placeholder="22:00"
                    value={draft.start}
                    onChange={(e) => set({ start: e.target.value })}
                    {...invalid("start", `${uid}-time-hint`)}
                  />
                </label>
                <label>
                  <span>To</span>
                  <input
                    id={ids.end}
                    type="text"
                    inputMode="numeric"
                    autoComplete="off"
                    size={5}
                    placeholder="07:00"
                    value={draft.end}
                    onChange={(e) => set({ end: e.target.value })}
                    {...invalid("end", `${uid}-time-hint`)}
                  />
                </label>
              </div>
              <p id={`${uid}-time-hint`} className="help">
                24-hour HH:MM. From after To runs past midnight (22:00 to 07:00).
              </p>
              {errorFor("start")}
              {errorFor("end")}
              <fieldset className="day-choices" {...describedGroup("days", `${uid}-days-hint`)}>
                <legend>Days</legend>
                <div className="day-row">
                  {QUIET_DAYS.map((day) => (
                    <label key={day} className="check-row">
                      <input
                        id={`${uid}-day-${day}`}
                        type="checkbox"
                        checked={draft.days.includes(day)}
                        onChange={(e) =>
                          set({
                            days: e.target.checked
                              ? [...draft.days, day]
                              : draft.days.filter((picked) => picked !== day),
                          })
                        }
                      />
                      <span>{DAY_LABELS[day]}</span>
                    </label>
                  ))}
                </div>
                <p id={`${uid}-days-hint`} className="help">
                  A night belongs to the day it starts on.
                </p>
                {errorFor("days")}
              </fieldset>
              <label className="check-row">
                <input
                  type="checkbox"
                  checked={draft.allowCritical}
                  onChange={(e) => set({ allowCritical: e.target.checked })}
                />
                <span>Critical still comes through</span>
              </label>
            </div>
          )}
          <div className="digest-field">
            <label htmlFor={ids.digest}>Digest (seconds)</label>
            <input
              id={ids.digest}
              type="text"
              inputMode="numeric"
              autoComplete="off"
              size={6}
              placeholder="none"
              value={draft.digest}
              onChange={(e) => set({ digest: e.target.value })}
              {...invalid("digest", `${uid}-digest-hint`)}
            />
            <p id={`${uid}-digest-hint`} className="help">
              Items within this window go as one message: Telegram edits it as they arrive and settle, other providers
              get it at the window's end. Empty: one message per item. At most 3600.
            </p>
            {errorFor("digest")}
          </div>
          <label className="check-row">
            <input
              type="checkbox"
              checked={draft.replaceFinished}
              onChange={(e) => set({ replaceFinished: e.target.checked })}
            />
            <span>A session's next “finished” replaces its last (where the provider can edit its message)</span>
          </label>
          {preview && (
            <p className="delivery-preview">
              <span className="muted">Summary:</span> {preview}
            </p>
          )}
        </fieldset>

        {errorFor("form")}
        <button type="submit" disabled={providers.length === 0}>
          {route ? "Save route" : "Add route"}
        </button>
      </form>
    </details>
  );
}
