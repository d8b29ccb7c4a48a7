import { basename, resolve } from "node:path";
import type { Upstream } from "../config/records.js";
import type { AgentAccountEntry } from "./agent-accounts.js";
import { jwtChatgptAccountId } from "./jwt.js";
import { accountDirectory, defaultCodexHome, readSigninFile, type SigninEnv } from "./signin-file.js";

/**
 * Smart switching rule 7 (docs/router.md, "Smart switching rule 7: one provider per signed-in account"): one
 * `plan_signin_a` provider per signed-in account of the host tool (Codex). The monitored accounts are the default one
 * (`$CODEX_HOME`, else `~/.codex`) and the Codex entries of
 * `RouterAgentAccounts`. Pure planning here; router.ts applies the plan through the configuration's own rules.
 */

export interface MonitoredAccount {
  dir: string;
  label: string;
  isDefault: boolean;
  /** Who is signed in there (the ChatGPT account id, else the directory); undefined when signed out. */
  accountKey: string | undefined;
}

function accountKeyOf(dir: string): string | undefined {
  const file = readSigninFile(dir);
  if (!file || (!file.accessToken && !file.refreshToken)) return undefined;
  const id =
    file.accountId ??
    (file.idToken ? jwtChatgptAccountId(file.idToken) : undefined) ??
    (file.accessToken ? jwtChatgptAccountId(file.accessToken) : undefined);
  return id ? `account:${id}` : `dir:${resolve(dir)}`;
}

export function monitoredCodexAccounts(env: SigninEnv, entries: readonly AgentAccountEntry[]): MonitoredAccount[] {
  const accounts: MonitoredAccount[] = [];
  const seen = new Set<string>();
  const add = (dir: string | undefined, label: string, isDefault: boolean): void => {
    if (dir === undefined || seen.has(resolve(dir))) return;
    seen.add(resolve(dir));
    accounts.push({ dir: resolve(dir), label, isDefault, accountKey: accountKeyOf(dir) });
  };
  add(defaultCodexHome(env), "default", true);
  for (const entry of entries) {
    if (entry.agent !== "codex") continue;
    add(accountDirectory(`profile:${entry.dir}`, env), entry.label ?? basename(entry.dir), false);
  }
  return accounts;
}

export interface ReconcilePlan {
  /** New providers, as upstream inputs (the first plan_signin_a provider is their template). */
  add: Record<string, unknown>[];
  /** Duplicates re-pointed at an unused account: same id and slug, new credential_ref. */
  repoint: { id: string; slug: string; credential_ref: string | null }[];
}

const refOf = (account: MonitoredAccount): string | null => (account.isDefault ? null : `profile:${account.dir}`);

function slugFor(base: string, label: string, taken: Set<string>): string {
  const part = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  const stem = `${base}-${part || "account"}`.slice(0, 28).replace(/-+$/, "");
  let slug = stem;
  for (let n = 2; taken.has(slug); n++) slug = `${stem}-${n}`;
  taken.add(slug);
  return slug;
}

/**
 * A missing account gets a provider; a provider that duplicates another's account is re-pointed at an unused one
 * (keeping its slug); a signed-out account gets none. Nothing happens until the owner has added at least one
 * `plan_signin_a` provider (the subscription preset): the router never invents an upstream on its own.
 */
export function planReconcile(
  upstreams: readonly Upstream[],
  accounts: readonly MonitoredAccount[],
  env: SigninEnv,
): ReconcilePlan {
  const plan: ReconcilePlan = { add: [], repoint: [] };
  const providers = upstreams.filter((upstream) => upstream.auth === "plan_signin_a");
  const template = providers[0];
  if (!template) return plan;
  const signedIn: MonitoredAccount[] = [];
  const keys = new Set<string>();
  for (const account of accounts) {
    if (account.accountKey === undefined || keys.has(account.accountKey)) continue;
    keys.add(account.accountKey);
    signedIn.push(account);
  }
  const keyOfProvider = (upstream: Upstream): string | undefined => {
    const dir = accountDirectory(upstream.credential_ref, env);
    if (dir === undefined) return undefined;
    return accounts.find((account) => account.dir === resolve(dir))?.accountKey ?? accountKeyOf(dir);
  };
  const used = new Set<string>();
  const duplicates: Upstream[] = [];
  for (const provider of providers) {
    const key = keyOfProvider(provider);
    if (key === undefined) continue; // signed out: its attempts fail with subscription_signed_out
    if (used.has(key)) duplicates.push(provider);
    else used.add(key);
  }
  const unused = signedIn.filter((account) => !used.has(account.accountKey as string));
  for (const duplicate of duplicates) {
    const account = unused.shift();
    if (!account) break;
    plan.repoint.push({ id: duplicate.id, slug: duplicate.slug, credential_ref: refOf(account) });
  }
  const taken = new Set(upstreams.map((upstream) => upstream.slug));
  for (const account of unused) {
    plan.add.push({
      slug: slugFor(template.slug, account.label, taken),
      label: `${template.label} (${account.label})`.slice(0, 100),
      wire: template.wire,
      base_url: template.base_url,
      models: template.models,
      model_wires: template.model_wires,
      enabled: template.enabled,
      auth: "plan_signin_a",
      credential_ref: refOf(account),
    });
  }
  return plan;
}
