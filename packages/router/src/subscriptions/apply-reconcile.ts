import { type RouterConfig, RouterConfigError } from "../config/config-service.js";
import type { RouterLog } from "../proxy/request-context.js";
import { monitoredCodexAccounts, planReconcile } from "./reconcile.js";
import { type SubscriptionOptions, signinEnv } from "./upstream-credentials.js";

export interface ReconcileReport {
  added: string[];
  repointed: string[];
  accounts: { dir: string; label: string; default: boolean; signed_in: boolean }[];
}

/**
 * Runs smart switching rule 7 (reconcile.ts) against the stored upstreams and applies it through the
 * configuration's own rules: at router start and whenever asked (`POST /ui/api/router/accounts/reconcile`).
 * Directories are logged, tokens never.
 */
export function reconcileAccounts(
  config: RouterConfig,
  options: SubscriptionOptions | undefined,
  log: RouterLog,
): ReconcileReport {
  const env = signinEnv(options);
  const accounts = monitoredCodexAccounts(env, options?.agentAccounts?.() ?? []);
  const plan = planReconcile(config.snapshot().upstreams, accounts, env);
  const report: ReconcileReport = {
    added: [],
    repointed: [],
    accounts: accounts.map((account) => ({
      dir: account.dir,
      label: account.label,
      default: account.isDefault,
      signed_in: account.accountKey !== undefined,
    })),
  };
  for (const change of plan.repoint) {
    try {
      config.saveUpstream({ credential_ref: change.credential_ref }, change.id);
      report.repointed.push(change.slug);
    } catch (error) {
      if (!(error instanceof RouterConfigError)) throw error;
      log.warn(`router: subscription provider ${change.slug} could not be re-pointed: ${error.message}`);
    }
  }
  for (const input of plan.add) {
    try {
      report.added.push(config.saveUpstream(input).slug);
    } catch (error) {
      if (!(error instanceof RouterConfigError)) throw error;
      log.warn(`router: subscription provider ${String(input.slug)} could not be added: ${error.message}`);
    }
  }
  if (report.added.length > 0 || report.repointed.length > 0) {
    log.info(
      `router: subscription accounts reconciled: added ${report.added.join(", ") || "none"}; re-pointed ${report.repointed.join(", ") || "none"}`,
    );
  }
  return report;
}
