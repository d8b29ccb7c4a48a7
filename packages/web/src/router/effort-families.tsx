import type { EffortFamilyView, EffortView } from "@notify/contracts/ui";
import { useState } from "react";
import { messageOf } from "../use-load.js";
import { draftOf, LevelTable, setOf } from "./effort-levels.js";
import { routerApi } from "./router-api.js";

/** The Families tab: the ten families, each with its automatic table and an override form. */
export function EffortFamilies({ view, onChanged }: { view: EffortView; onChanged: (done: string) => void }) {
  return (
    <ul className="plain-list">
      {view.families.map((family) => (
        <li key={family.id}>
          <FamilyEditor family={family} onChanged={(done) => onChanged(`${family.id}: ${done}`)} />
        </li>
      ))}
    </ul>
  );
}

function FamilyEditor({ family, onChanged }: { family: EffortFamilyView; onChanged: (done: string) => void }) {
  const [draft, setDraft] = useState(() => draftOf(family.override));
  const [error, setError] = useState("");
  // The draft follows what the broker stored (the details stay open across a save).
  const run = async (work: () => Promise<EffortView | undefined>, done: string) => {
    try {
      const view = await work();
      setDraft(draftOf(view?.families.find((item) => item.id === family.id)?.override));
      setError("");
      onChanged(done);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <details className="family">
      <summary>
        <strong>{family.label}</strong> <code>{family.id}</code>
        {family.override && <span className="badge">overridden</span>}
      </summary>
      <form
        aria-label={`Overrides for ${family.id}`}
        onSubmit={(event) => {
          event.preventDefault();
          void run(() => routerApi.saveFamily(family.id, setOf(draft)), "saved");
        }}
      >
        <p className="help">
          {family.accepted.length > 0 ? (
            <>
              Accepts <strong>{family.accepted.join(", ")}</strong> (lowest first).
            </>
          ) : (
            "Takes no effort setting: every level omits it."
          )}{" "}
          Model IDs matching <code>{family.pattern}</code>.
        </p>
        <LevelTable
          caption={`${family.id}: automatic, override and result per level`}
          base={family.automatic}
          baseLabel="Automatic"
          keepLabel="automatic"
          accepted={family.accepted}
          draft={draft}
          effective={family.effective}
          onChange={setDraft}
        />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary">
            Save <span className="visually-hidden">{family.id} overrides</span>
          </button>
          <button
            type="button"
            disabled={!family.override}
            onClick={() =>
              void run(async () => {
                await routerApi.resetFamily(family.id);
                return undefined;
              }, "back to automatic")
            }
          >
            Reset <span className="visually-hidden">{family.id}</span> to automatic
          </button>
        </div>
      </form>
    </details>
  );
}
