import type { EffortTableView, EffortView } from "@notify/contracts/ui";
import { EFFORT_LEVELS } from "@notify/contracts/ui-constants";
import { useState } from "react";
import { HeaderWithActions } from "../table-header.js";
import { messageOf } from "../use-load.js";
import { draftOf, familyFor, LevelTable, setOf, shown } from "./effort-levels.js";
import { routerApi } from "./router-api.js";
import { TARGET_CHOICES } from "./targets-editor.js";

/** Under a set for a model of no known family: the five names as themselves (docs/router.md, Effort mapping). */
const IDENTITY: EffortTableView = {
  levels: { low: "low", medium: "medium", high: "high", xhigh: "xhigh", max: "max" },
  default: null,
};

/** The Per model tab: the provider/model override sets, Edit and Remove each, and the form that saves one. */
export function EffortModels({ view, onChanged }: { view: EffortView; onChanged: (done: string) => void }) {
  const [model, setModel] = useState("");
  const [draft, setDraft] = useState(() => draftOf(undefined));
  const [error, setError] = useState("");
  const [rowError, setRowError] = useState("");
  const family = familyFor(model.slice(model.indexOf("/") + 1), view.families);
  const entries = Object.entries(view.models);
  return (
    <>
      {entries.length === 0 ? (
        <p className="muted">No per-model overrides: every model follows its family.</p>
      ) : (
        <div className="table-scroll effort-scroll">
          <p className="help">Per-model overrides (–: the family's value applies).</p>
          <table className="effort-table">
            <caption className="visually-hidden">Per-model overrides</caption>
            <HeaderWithActions columns={["Model", ...EFFORT_LEVELS, "default"]} />
            <tbody>
              {entries.map(([name, set]) => (
                <tr key={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  {EFFORT_LEVELS.map((level) => (
                    <td key={level}>{shown(set.levels?.[level])}</td>
                  ))}
                  <td>{shown(set.default)}</td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        onClick={() => {
                          setModel(name);
                          setDraft(draftOf(set));
                          setError("");
                        }}
                      >
                        Edit <span className="visually-hidden">{name}</span>
                      </button>
                      <button
                        type="button"
                        onClick={async () => {
                          try {
                            await routerApi.removeModel(name);
                            setRowError("");
                            onChanged(`Removed the override of ${name}`);
                          } catch (failure) {
                            setRowError(messageOf(failure));
                          }
                        }}
                      >
                        Remove <span className="visually-hidden">{name}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rowError && (
        <p className="error" role="alert">
          {rowError}
        </p>
      )}
      <form
        className="stacked-form"
        aria-label="Per-model override"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            await routerApi.saveModel({ model: model.trim(), ...setOf(draft) });
            setError("");
            onChanged(`Saved the override of ${model.trim()}`);
            setModel("");
            setDraft(draftOf(undefined));
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        <h3>Add or change a model's override</h3>
        <label>
          <span>Model (provider/model)</span>
          <input
            required
            list={TARGET_CHOICES}
            placeholder="provider/model"
            value={model}
            onChange={(event) => setModel(event.target.value)}
          />
        </label>
        <p className="help" aria-live="polite">
          {model.includes("/") &&
            (family ? (
              <>
                Family <code>{family.id}</code>: accepts {family.accepted.join(", ") || "no effort setting"}.
              </>
            ) : (
              "No known family: with an override set, the five names are sent as themselves."
            ))}
        </p>
        <LevelTable
          caption="This model's override per level"
          base={family ? family.effective : IDENTITY}
          baseLabel={family ? "Family gives" : "Without a family"}
          keepLabel={family ? "as the family" : "as named"}
          accepted={family ? family.accepted : EFFORT_LEVELS}
          draft={draft}
          onChange={setDraft}
        />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary">
          Save override
        </button>
      </form>
    </>
  );
}
