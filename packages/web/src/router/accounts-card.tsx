import type { RouterAccount } from "@notify/contracts/ui";
import { useState } from "react";
import { call } from "../api/client.js";
import { shortTime } from "../format.js";
import { actionRunner, useLoad } from "../use-load.js";

/** /ui/api/router/accounts (docs/router.md, "Subscriptions and saved accounts"). */
export const accountsApi = {
  list: () => call<RouterAccount[]>("GET", "/router/accounts"),
  create: (body: { provider?: string; label?: string; key?: string; admin_only?: boolean; from_tool?: string }) =>
    call<RouterAccount>("POST", "/router/accounts", body),
  remove: (id: string) => call<void>("DELETE", `/router/accounts/${encodeURIComponent(id)}`),
};

/**
 * Saved accounts: a provider key kept once (sealed, write-only) that any number of providers can use as their key
 * (`api_account:<id>`, chosen in a provider's Edit form). The key field is cleared once sent; "the key Codex holds"
 * is read by the broker only when this button is pressed.
 */
export function AccountsCard({ onChanged }: { onChanged?: () => void }) {
  const accounts = useLoad(accountsApi.list);
  const [message, setMessage] = useState("");
  const [draft, setDraft] = useState({ provider: "", label: "", adminOnly: false });
  const act = actionRunner(setMessage, () => {
    accounts.reload();
    onChanged?.();
  });
  return (
    <section className="card" aria-labelledby="accounts-title">
      <h2 id="accounts-title">Saved accounts</h2>
      <p className="muted">
        A key saved once and used by providers that name it (Edit a provider, then "Key from"). Keys are sealed and
        never shown again.
      </p>
      <p className="muted" role="status">
        {message}
      </p>
      {accounts.error && <p className="error">{accounts.error}</p>}
      {accounts.data?.length === 0 && <p className="muted">No saved accounts.</p>}
      <ul className="plain-list">
        {accounts.data?.map((account) => (
          <li key={account.id} className="config-row">
            <div>
              <strong>{account.label}</strong> <code>{account.provider}</code>
              {account.admin_only && <span className="state"> Admin key</span>}
              <p className="muted">
                <code>api_account:{account.id}</code> · saved {shortTime(account.created_at)}
              </p>
            </div>
            <div className="actions">
              <button type="button" onClick={() => void act(() => accountsApi.remove(account.id), "Removed")}>
                Remove <span className="visually-hidden">{account.label}</span>
              </button>
            </div>
          </li>
        ))}
      </ul>
      <form
        className="stacked-form"
        aria-label="Save an account"
        onSubmit={(event) => {
          event.preventDefault();
          const keyInput = event.currentTarget.elements.namedItem("account-key") as HTMLInputElement;
          const key = keyInput.value;
          void act(
            () =>
              accountsApi.create({
                provider: draft.provider,
                ...(draft.label ? { label: draft.label } : {}),
                key,
                admin_only: draft.adminOnly,
              }),
            `Saved ${draft.label || draft.provider}`,
          ).then((saved) => {
            keyInput.value = "";
            if (saved) setDraft({ provider: "", label: "", adminOnly: false });
          });
        }}
      >
        <label>
          <span>Provider (e.g. openai, anthropic)</span>
          <input
            required
            value={draft.provider}
            onChange={(event) => setDraft({ ...draft, provider: event.target.value })}
          />
        </label>
        <label>
          <span>Label</span>
          <input value={draft.label} onChange={(event) => setDraft({ ...draft, label: event.target.value })} />
        </label>
        <label>
          <span>Account key</span>
          <input name="account-key" type="password" autoComplete="off" required />
        </label>
        <div className="field check">
          <input
            id="account-admin-only"
            type="checkbox"
            checked={draft.adminOnly}
            onChange={(event) => setDraft({ ...draft, adminOnly: event.target.checked })}
          />
          <label htmlFor="account-admin-only">Admin-only key (cannot send model requests)</label>
        </div>
        <div className="actions">
          <button type="submit">Save account</button>
          <button
            type="button"
            onClick={() => void act(() => accountsApi.create({ from_tool: "codex" }), "Saved the key Codex holds")}
          >
            Save the key Codex holds
          </button>
        </div>
      </form>
    </section>
  );
}
