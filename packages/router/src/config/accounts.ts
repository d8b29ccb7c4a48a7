import type { DatabaseSync } from "node:sqlite";
import { AccountsStore, type SavedAccount } from "./accounts-store.js";
import type { KeySealer } from "./store.js";
import { newRecordId } from "./store.js";

export type { SavedAccount } from "./accounts-store.js";

/** Thrown for a refused account change; the broker answers 400 `{error}` (RouterConfigError is its sibling). */
export class AccountInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AccountInputError";
  }
}

const refuse = (message: string): never => {
  throw new AccountInputError(message);
};

export const PROVIDER_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/**
 * Saved provider accounts: a key per account, sealed with the broker's sealer (bound to the account id) and opened
 * only when an attempt of an upstream that references it (`api_account:<id>`) is built, every attempt anew. An
 * account whose key only administers the provider (`admin_only`) cannot send model requests and is never offered
 * as an upstream's key. Readers get `has_key` only.
 */
export class SavedAccounts {
  private readonly store: AccountsStore;

  constructor(
    db: DatabaseSync,
    private readonly sealer: KeySealer,
    private readonly now: () => string,
  ) {
    this.store = new AccountsStore(db);
  }

  list(): SavedAccount[] {
    return this.store.all();
  }

  find(id: string): SavedAccount | undefined {
    return this.store.find(id);
  }

  create(input: Record<string, unknown>): SavedAccount {
    for (const field of Object.keys(input)) {
      if (!["provider", "label", "key", "admin_only"].includes(field)) refuse(`unknown account field: ${field}`);
    }
    const { provider, key } = input;
    if (typeof provider !== "string" || !PROVIDER_PATTERN.test(provider)) {
      refuse("provider must match [a-z0-9][a-z0-9-]{0,31} (e.g. openai, anthropic)");
    }
    const label = input.label ?? provider;
    if (typeof label !== "string" || label.length < 1 || label.length > 100) refuse("label must be 1-100 characters");
    if (typeof key !== "string" || key.length < 1 || key.length > 8192 || /[\r\n\0]/.test(key)) {
      refuse("key must be a string of 1-8192 characters (no line breaks)");
    }
    const adminOnly = input.admin_only ?? false;
    if (typeof adminOnly !== "boolean") refuse("admin_only must be true or false");
    const account: SavedAccount = {
      id: newRecordId("acc"),
      provider: provider as string,
      label: label as string,
      admin_only: adminOnly as boolean,
      has_key: true,
      created_at: this.now(),
    };
    this.store.save(account, this.sealer.seal(account.id, { key: key as string }));
    return account;
  }

  delete(id: string): boolean {
    return this.store.delete(id);
  }

  /** The account's key for one attempt; undefined when the account is gone or its key cannot be opened. */
  openKey(id: string): string | undefined {
    const sealed = this.store.sealedKey(id);
    if (sealed === undefined) return undefined;
    try {
      return this.sealer.open(id, sealed).key;
    } catch {
      return undefined;
    }
  }
}
