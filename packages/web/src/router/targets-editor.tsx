import type { RouterRoute, RouterUpstream } from "@notify/contracts/ui";

/** `provider/model` of every enabled upstream's declared models: what a target picker offers (free typing too). */
export function targetChoices(upstreams: RouterUpstream[] | undefined): string[] {
  return (upstreams ?? [])
    .filter((upstream) => upstream.enabled)
    .flatMap((upstream) => upstream.models.map((model) => `${upstream.slug}/${model}`));
}

/** What a default or fallback route may name: aliases and combos (also as `combo/<name>`), then the targets. */
export function routeChoices(routes: RouterRoute[] | undefined, upstreams: RouterUpstream[] | undefined): string[] {
  const named = (routes ?? []).flatMap((route) =>
    route.kind === "combo" ? [route.name, `combo/${route.name}`] : [route.name],
  );
  return [...named, ...targetChoices(upstreams)];
}

/** A datalist the pickers point at with `list=`; an input keeps free typing. */
export function Choices({ id, values }: { id: string; values: string[] }) {
  return (
    <datalist id={id}>
      {values.map((value) => (
        <option key={value} value={value} />
      ))}
    </datalist>
  );
}

export const TARGET_CHOICES = "router-target-choices";
export const ROUTE_CHOICES = "router-route-choices";

/**
 * An ordered target list: one picker per target, Move up / Move down / Remove per row, and Add target up to `max`
 * (1 for an alias, 8 for a combo). Inputs are named "Target <n>"; the form around them names the route.
 */
export function TargetsEditor({
  targets,
  max,
  onChange,
}: {
  targets: string[];
  max: number;
  onChange: (targets: string[]) => void;
}) {
  const move = (from: number, to: number) => {
    const next = [...targets];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item ?? "");
    onChange(next);
  };
  return (
    <fieldset className="targets">
      <legend>{max === 1 ? "Target" : `Targets, tried in order (1-${max})`}</legend>
      <ol>
        {targets.map((target, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions; their text is edited in place.
          <li key={index}>
            <span className="target-number" aria-hidden="true">
              {index + 1}.
            </span>
            <input
              aria-label={`Target ${index + 1}`}
              required
              list={TARGET_CHOICES}
              placeholder="provider/model"
              value={target}
              onChange={(event) => onChange(targets.map((item, at) => (at === index ? event.target.value : item)))}
            />
            {max > 1 && (
              <span className="row-buttons">
                <button
                  type="button"
                  disabled={index === 0}
                  aria-label={`Move target ${index + 1} up`}
                  onClick={() => move(index, index - 1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  disabled={index === targets.length - 1}
                  aria-label={`Move target ${index + 1} down`}
                  onClick={() => move(index, index + 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  disabled={targets.length === 1}
                  aria-label={`Remove target ${index + 1}`}
                  onClick={() => onChange(targets.filter((_, at) => at !== index))}
                >
                  ✕
                </button>
              </span>
            )}
          </li>
        ))}
      </ol>
      {max > 1 && (
        <button type="button" disabled={targets.length >= max} onClick={() => onChange([...targets, ""])}>
          Add target
        </button>
      )}
    </fieldset>
  );
}
