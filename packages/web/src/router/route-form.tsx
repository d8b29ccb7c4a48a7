import type { RouterRoute } from "@notify/contracts/ui";
import { MAX_COMBO_TARGETS } from "@notify/contracts/ui-constants";
import { useState } from "react";
import { messageOf } from "../use-load.js";
import { routerApi } from "./router-api.js";
import { TargetsEditor } from "./targets-editor.js";

type Kind = RouterRoute["kind"];

/**
 * A new alias (one target) or combo (1-8 targets, tried in order), or an edit of one (`route` given): name and
 * targets; the kind is fixed once made. The broker's refusal is shown as it says it.
 */
export function RouterRouteForm({ route, onSaved }: { route?: RouterRoute; onSaved: (done: string) => void }) {
  const [name, setName] = useState(route?.name ?? "");
  const [kind, setKind] = useState<Kind>(route?.kind ?? "alias");
  const [targets, setTargets] = useState<string[]>(route?.targets ?? [""]);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState("");
  const what = route ? `${route.kind} ${route.name}` : "a new alias or combo";
  return (
    <details
      className={route ? "edit-form" : "add-form"}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        {route ? (
          <>
            Edit <span className="visually-hidden">{route.name}</span>
          </>
        ) : (
          "Add an alias or combo"
        )}
      </summary>
      <form
        className="stacked-form"
        aria-label={route ? `Edit ${what}` : "Add an alias or combo"}
        onSubmit={async (event) => {
          event.preventDefault();
          const list = targets.map((target) => target.trim()).filter(Boolean);
          try {
            if (route) await routerApi.patchRoute(route.id, { name, targets: list });
            else await routerApi.createRoute({ name, kind, targets: list, enabled: true });
            setError("");
            if (route) setOpen(false);
            else {
              setName("");
              setKind("alias");
              setTargets([""]);
            }
            onSaved(route ? `Saved ${name}` : `Added ${kind} ${name}`);
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        <label>
          <span>Name</span>
          <input required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        {!route && (
          <label>
            <span>Kind</span>
            <select
              value={kind}
              onChange={(e) => {
                const next = e.target.value as Kind;
                setKind(next);
                if (next === "alias") setTargets(targets.slice(0, 1));
              }}
            >
              <option value="alias">alias (one target)</option>
              <option value="combo">combo (targets in order)</option>
            </select>
          </label>
        )}
        <TargetsEditor targets={targets} max={kind === "alias" ? 1 : MAX_COMBO_TARGETS} onChange={setTargets} />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">{route ? "Save route" : "Add route"}</button>
      </form>
    </details>
  );
}
