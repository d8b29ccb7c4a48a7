import type { RouterUpstream } from "@notify/contracts/ui";
import { RECORD_WIRES as WIRES } from "@notify/contracts/ui-constants";
import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf, useLoad } from "../use-load.js";
import { accountsApi } from "./accounts-card.js";

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
          const keyFrom = event.currentTarget.elements.namedItem("upstream-key-from") as HTMLSelectElement | null;
          const reference = keyFromChange(upstream, keyFrom?.value, Boolean(keyInput?.value));
          try {
            await api.router.saveUpstream(
              {
                slug: draft.slug,
                label: draft.label || draft.slug,
                base_url: draft.base_url,
                wire: draft.wire,
                models: draft.models.split(/[\s,]+/).filter(Boolean),
                ...(keyInput?.value ? { key: keyInput.value } : {}),
                ...reference,
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
        {upstream && open && upstream.auth === "api_key" && <KeyFrom upstream={upstream} />}
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

/**
 * What a save changes about the key's source: choosing a saved account sends `credential_ref: api_account:<id>`;
 * going back to "the key typed above" drops the reference (a typed key replaces it by itself,
 * docs/router.md, "Saved accounts").
 */
function keyFromChange(
  upstream: RouterUpstream | undefined,
  chosen: string | undefined,
  typedKey: boolean,
): { credential_ref?: string | null } {
  if (!upstream || chosen === undefined) return {};
  const current = upstream.credential_ref?.startsWith("api_account:") ? upstream.credential_ref : "";
  if (chosen === current || typedKey) return {};
  return { credential_ref: chosen === "" ? null : chosen };
}

/** "Key from": the typed key, or a saved account that can send model requests (admin-only keys are not offered). */
function KeyFrom({ upstream }: { upstream: RouterUpstream }) {
  const accounts = useLoad(accountsApi.list);
  const current = upstream.credential_ref?.startsWith("api_account:") ? upstream.credential_ref : "";
  const usable = accounts.data?.filter((account) => !account.admin_only) ?? [];
  return (
    <label>
      <span>Key from</span>
      <select name="upstream-key-from" defaultValue={current} key={`${current}-${usable.length}`}>
        <option value="">The API key field above</option>
        {usable.map((account) => (
          <option key={account.id} value={`api_account:${account.id}`}>
            Saved account: {account.label} ({account.provider})
          </option>
        ))}
        {current && !usable.some((account) => `api_account:${account.id}` === current) && (
          <option value={current}>A removed account (requests fail until you choose another)</option>
        )}
      </select>
    </label>
  );
}
