import type { RouterUpstream } from "@notify/contracts/ui";
import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf } from "../use-load.js";

const WIRES = ["responses_wire", "chat_wire", "messages_wire"];

const EMPTY = { slug: "", label: "", base_url: "", wire: "chat_wire", models: "" };

const draftOf = (upstream: RouterUpstream | undefined) =>
  upstream
    ? {
        slug: upstream.slug,
        label: upstream.label,
        base_url: upstream.base_url,
        wire: upstream.wire,
        models: upstream.models.join(", "),
      }
    : EMPTY;

/**
 * Adds an upstream, or edits one. The key field is a password input cleared once sent: keys are write-only, and an
 * empty key field on an edit keeps the stored key.
 */
export function UpstreamForm({ upstream, onSaved }: { upstream?: RouterUpstream; onSaved: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(upstream));
  const [open, setOpen] = useState(false);
  const [error, setError] = useState("");
  return (
    <details
      className={upstream ? "edit-form" : "add-form"}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        {upstream ? (
          <>
            Edit <span className="visually-hidden">{upstream.label}</span>
          </>
        ) : (
          "Add an upstream"
        )}
      </summary>
      <form
        className="stacked-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const keyInput = event.currentTarget.elements.namedItem("upstream-key") as HTMLInputElement | null;
          try {
            await api.router.saveUpstream(
              {
                slug: draft.slug,
                label: draft.label || draft.slug,
                base_url: draft.base_url,
                wire: draft.wire,
                models: draft.models.split(/[\s,]+/).filter(Boolean),
                ...(keyInput?.value ? { key: keyInput.value } : {}),
              },
              upstream?.id,
            );
            if (keyInput) keyInput.value = "";
            setError("");
            if (upstream) setOpen(false);
            else setDraft(EMPTY);
            onSaved();
          } catch (failure) {
            setError(messageOf(failure));
          }
        }}
      >
        <label>
          <span>Slug</span>
          <input required value={draft.slug} onChange={(e) => setDraft({ ...draft, slug: e.target.value })} />
        </label>
        <label>
          <span>Label</span>
          <input value={draft.label} onChange={(e) => setDraft({ ...draft, label: e.target.value })} />
        </label>
        <label>
          <span>Base URL</span>
          <input
            required
            type="url"
            value={draft.base_url}
            onChange={(e) => setDraft({ ...draft, base_url: e.target.value })}
          />
        </label>
        <label>
          <span>Wire</span>
          <select value={draft.wire} onChange={(e) => setDraft({ ...draft, wire: e.target.value })}>
            {WIRES.map((wire) => (
              <option key={wire}>{wire}</option>
            ))}
          </select>
        </label>
        <label>
          <span>Models (comma separated)</span>
          <input value={draft.models} onChange={(e) => setDraft({ ...draft, models: e.target.value })} />
        </label>
        <label>
          <span>API key{upstream ? (upstream.has_key ? " (set; leave empty to keep it)" : " (none set)") : ""}</span>
          <input name="upstream-key" type="password" autoComplete="off" />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">{upstream ? "Save upstream" : "Add upstream"}</button>
      </form>
    </details>
  );
}
