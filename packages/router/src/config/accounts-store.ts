import type { DatabaseSync, StatementSync } from "node:sqlite";

/** A saved provider account as every reader sees it: never the key. */
export interface SavedAccount {
  id: string;
  provider: string;
  label: string;
  admin_only: boolean;
  has_key: true;
  created_at: string;
}

interface AccountRow {
  id: string;
  provider: string;
  label: string;
  admin_only: number;
  created_at: string;
}

const toAccount = (row: AccountRow): SavedAccount => ({
  id: row.id,
  provider: row.provider,
  label: row.label,
  admin_only: row.admin_only === 1,
  has_key: true,
  created_at: row.created_at,
});

/** SQL for the `accounts` table of router.db (migration 4, config/store.ts). */
export class AccountsStore {
  private readonly list: StatementSync;
  private readonly one: StatementSync;
  private readonly sealed: StatementSync;
  private readonly insert: StatementSync;
  private readonly remove: StatementSync;

  constructor(db: DatabaseSync) {
    this.list = db.prepare("SELECT id, provider, label, admin_only, created_at FROM accounts ORDER BY created_at, id");
    this.one = db.prepare("SELECT id, provider, label, admin_only, created_at FROM accounts WHERE id = ?");
    this.sealed = db.prepare("SELECT sealed_key FROM accounts WHERE id = ?");
    this.insert = db.prepare(`INSERT INTO accounts (id, provider, label, sealed_key, admin_only, created_at)
      VALUES (:id, :provider, :label, :sealed_key, :admin_only, :created_at)`);
    this.remove = db.prepare("DELETE FROM accounts WHERE id = ?");
  }

  all(): SavedAccount[] {
    return (this.list.all() as unknown as AccountRow[]).map(toAccount);
  }

  find(id: string): SavedAccount | undefined {
    const row = this.one.get(id) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  sealedKey(id: string): string | undefined {
    return (this.sealed.get(id) as { sealed_key: string } | undefined)?.sealed_key;
  }

  save(account: SavedAccount, sealedKey: string): void {
    this.insert.run({
      id: account.id,
      provider: account.provider,
      label: account.label,
      sealed_key: sealedKey,
      admin_only: account.admin_only ? 1 : 0,
      created_at: account.created_at,
    });
  }

  delete(id: string): boolean {
    return Number(this.remove.run(id).changes) > 0;
  }
}
