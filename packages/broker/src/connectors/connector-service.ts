import { rmSync } from "node:fs";
import { join } from "node:path";
import type { AgentAccountView } from "@notify/contracts/ui";
import { EFFORT_LEVELS } from "@notify/contracts/ui-constants";
import type { ConfigSnapshot } from "@notify/router";
import { withoutBom } from "../fs/text-style.js";
import {
  type AccountEnv,
  type AgentAccount,
  type ConfiguredAccount,
  type ConnectorAgent,
  listAccounts,
} from "./accounts.js";
import { releaseAgentFile, writeAgentFile } from "./agent-files.js";
import { type Backup, BackupStore, directoryExists } from "./backups.js";
import { connectClaudeSettings, disconnectClaudeSettings, recordPrior } from "./claude-settings.js";
import { buildCodexCatalog, hostCachedModels } from "./codex-catalog.js";
import { checkCodexConfig, connectCodexConfigFile, disconnectCodexConfig } from "./codex-config.js";
import { type Connection, ConnectionState, type ConnectOptions, type FileRecord } from "./connection-state.js";
import { ConnectorError } from "./connector-error.js";
import { readIfExists, writeJsonFile } from "./file-store.js";
import { parseSettingsFile, parseSettingsText, serializeSettings } from "./json-settings.js";
import { defaultSelector, resolves, routedSelectors } from "./selectors.js";

export interface ConnectorDeps {
  dataDir: string;
  snapshot: () => ConfigSnapshot;
  /** The router's switch and key (config.json RouterEnabled, RouterKey). */
  router: () => { enabled: boolean; key: string | undefined };
  /** The broker's own base URL, e.g. `http://127.0.0.1:47821`. */
  brokerUrl: () => string;
  /** config.json `RouterAgentAccounts`. */
  configuredAccounts: () => ConfiguredAccount[];
  where?: AccountEnv;
  now?: () => Date;
  warn?: (message: string) => void;
}

/** One account as the Agents page and `notify router agents` show it (the shared shape in @notify/contracts/ui). */
export type AccountView = AgentAccountView;

/** The five effort names: the contract's list (issue 34: each enum once). */
export const EFFORTS = EFFORT_LEVELS;

/**
 * Agent connectors (docs/connectors.md, "Agent connectors"): point every installed account of Codex or Claude Code at
 * the router, rewrite them when the router's configuration or key changes, and take Notify's part out again.
 */
export class ConnectorService {
  readonly backups: BackupStore;
  private readonly state: ConnectionState;

  constructor(private readonly deps: ConnectorDeps) {
    this.backups = new BackupStore(deps.dataDir, deps.now);
    this.state = new ConnectionState(deps.dataDir);
  }

  accounts(): AgentAccount[] {
    return listAccounts(this.deps.configuredAccounts(), this.deps.where);
  }

  list(): AccountView[] {
    const connections = this.state.all();
    return this.accounts().map((account) => view(account, connections[account.id]));
  }

  /** The selectors an agent can be pointed at (GET /router/v1/models). */
  selectors(): string[] {
    return routedSelectors(this.deps.snapshot()).map((selector) => selector.id);
  }

  /**
   * Connects every installed account of `agent`. `notices` receives what the owner should know (a file made 0600
   * because it was readable by others and now holds the router key).
   */
  connect(agent: ConnectorAgent, input: Partial<ConnectOptions>, notices?: string[]): AccountView[] {
    const accounts = this.accounts().filter((account) => account.agent === agent);
    const installed = accounts.filter((account) => account.installed);
    if (installed.length === 0) {
      const dir = accounts[0]?.dir ?? agent;
      throw new ConnectorError(409, `${agent} is not installed: ${dir} does not exist (nothing was changed)`);
    }
    const router = this.deps.router();
    if (!router.enabled || router.key === undefined) {
      throw new ConnectorError(409, "the router is off: switch it on first (the Providers page or `notify apply`)");
    }
    const options = this.checkedOptions(input);
    // Every account's files are read and worked out before any is written: one that cannot be parsed refuses the
    // whole connect, and no other account is left connected by half.
    const commits = installed.map((account) =>
      this.prepare(account, options, this.state.get(account.id), "connect", notices),
    );
    for (const commit of commits) commit();
    return this.list().filter((account) => account.agent === agent);
  }

  /** Takes Notify's part out of every connected account of `agent`. */
  disconnect(agent: ConnectorAgent): AccountView[] {
    const connections = this.state.all();
    for (const account of this.accounts()) {
      const connection = connections[account.id];
      if (account.agent !== agent || connection === undefined) continue;
      this.release(account, connection);
    }
    return this.list().filter((account) => account.agent === agent);
  }

  /**
   * After a change of upstreams, routes or the router key: every connected account gets its catalogue, key and
   * models written again; a subagent, review or small model that no longer resolves is dropped, and a main model
   * that no longer resolves gives way to the default.
   */
  rewrite(): void {
    const router = this.deps.router();
    if (router.key === undefined) return;
    const connections = this.state.all();
    // Nothing connected (the usual case): no config.json read, no directory looked at.
    if (Object.keys(connections).length === 0) return;
    const snapshot = this.deps.snapshot();
    for (const account of this.accounts()) {
      const connection = connections[account.id];
      if (connection === undefined || !account.installed) continue;
      const fallback = defaultSelector(snapshot);
      const model = resolves(snapshot, connection.options.model) ? connection.options.model : fallback;
      if (model === undefined) {
        this.deps.warn?.(
          `router connectors: no routed model left for ${account.agent} (${account.dir}); left as it was`,
        );
        continue;
      }
      const keep = (selector: string | undefined) =>
        selector !== undefined && resolves(snapshot, selector) ? selector : undefined;
      const options: ConnectOptions = {
        ...connection.options,
        model,
        subagentModel: keep(connection.options.subagentModel),
        reviewModel: keep(connection.options.reviewModel),
        smallModel: keep(connection.options.smallModel),
      };
      try {
        this.write(account, options, connection, "rewrite");
      } catch (error) {
        this.deps.warn?.(`router connectors: cannot rewrite ${account.dir}: ${(error as Error).message}`);
      }
    }
  }

  listBackups(): Backup[] {
    return this.backups.list();
  }

  restoreBackup(id: string): { restored: Backup; saved?: Backup } {
    const backup = this.backups.find(id);
    if (!backup) throw new ConnectorError(404, "backup not found");
    if (!directoryExists(join(backup.file, ".."))) {
      throw new ConnectorError(409, `${join(backup.file, "..")} does not exist any more (nothing was changed)`);
    }
    const result = this.backups.restore(id);
    if (!result) throw new ConnectorError(404, "backup not found");
    return result;
  }

  private checkedOptions(input: Partial<ConnectOptions>): ConnectOptions {
    const snapshot = this.deps.snapshot();
    const model = input.model ?? defaultSelector(snapshot);
    if (model === undefined) {
      throw new ConnectorError(409, "the router has no model to offer: add an upstream with models, or a route");
    }
    for (const [field, selector] of [
      ["model", model],
      ["subagent_model", input.subagentModel],
      ["review_model", input.reviewModel],
      ["small_model", input.smallModel],
    ] as const) {
      if (selector !== undefined && !resolves(snapshot, selector)) {
        throw new ConnectorError(400, `${field} ${selector} is not a routed model (see GET /router/v1/models)`);
      }
    }
    for (const [field, effort] of [
      ["effort", input.effort],
      ["subagent_effort", input.subagentEffort],
    ] as const) {
      if (effort !== undefined && !(EFFORTS as readonly string[]).includes(effort)) {
        throw new ConnectorError(400, `${field} must be one of ${EFFORTS.join(", ")}`);
      }
    }
    return { ...input, model };
  }

  private write(account: AgentAccount, options: ConnectOptions, previous: Connection | undefined, reason: string) {
    this.prepare(account, options, previous, reason, [])();
  }

  /**
   * Reads and works out what connecting `account` writes (throwing, with nothing written, when a file cannot be
   * parsed), and returns the step that writes it: backups, the agent's files, the catalogue and the state.
   */
  private prepare(
    account: AgentAccount,
    options: ConnectOptions,
    previous: Connection | undefined,
    reason: string,
    notices?: string[],
  ): () => void {
    const router = this.deps.router();
    const snapshot = this.deps.snapshot();
    const now = (this.deps.now?.() ?? new Date()).toISOString();
    const base = this.deps.brokerUrl();
    const connection: Connection = {
      agent: account.agent,
      dir: account.dir,
      options,
      files: { ...previous?.files },
      connected_at: previous?.connected_at ?? now,
      updated_at: now,
    };
    if (account.agent === "codex") {
      const catalog = join(this.deps.dataDir, "connectors", `${account.id.replace(":", "-")}-models.json`);
      const entries = buildCodexCatalog(snapshot, hostCachedModels(account.dir));
      const file = join(account.dir, "config.toml");
      // Read before any account is written, as Claude Code's settings.json is: one that cannot be parsed refuses all.
      const existing = readIfExists(file);
      if (existing !== undefined) checkCodexConfig(file, existing.toString("utf8"));
      const render = (current: string | undefined): string =>
        connectCodexConfigFile(file, current ?? "", {
          baseUrl: `${base}/router/v1`,
          routerKey: router.key as string,
          model: options.model,
          effort: options.effort,
          subagentModel: options.subagentModel,
          subagentEffort: options.subagentEffort,
          reviewModel: options.reviewModel,
          catalogPath: catalog,
        });
      return () => {
        writeJsonFile(catalog, entries);
        connection.files[file] = this.writeFile(account, file, render, previous?.files[file], reason, notices);
        connection.catalog = catalog;
        this.state.put(account.id, connection);
      };
    }
    // Claude Code: a JSON merge of settings.json.
    const file = join(account.dir, "settings.json");
    const document = parseSettingsFile(file);
    const prior = previous?.prior ?? recordPrior(document);
    const render = (current: string | undefined): string =>
      serializeSettings(
        connectClaudeSettings(parseSettingsText(current, file), prior, {
          baseUrl: `${base}/router`,
          routerKey: router.key as string,
          model: options.model,
          smallModel: options.smallModel,
          subagentModel: options.subagentModel,
          selectors: routedSelectors(snapshot).map((selector) => ({ id: selector.id, model: selector.model })),
          replaceLineup: options.replaceLineup === true,
        }),
        current,
      );
    return () => {
      connection.files[file] = this.writeFile(account, file, render, previous?.files[file], reason, notices);
      connection.prior = prior;
      this.state.put(account.id, connection);
    };
  }

  /** Writes one agent file; a file readable by others that now holds the router key was made 0600: said here. */
  private writeFile(
    account: AgentAccount,
    file: string,
    render: (current: string | undefined) => string,
    record: FileRecord | undefined,
    reason: string,
    notices: string[] | undefined,
  ): FileRecord {
    const written = writeAgentFile(this.backups, account, file, render, record, reason);
    if (written.tightenedFrom !== undefined) {
      const notice =
        `${file} was readable by others (mode ${written.tightenedFrom.toString(8).padStart(4, "0")}) and now ` +
        "holds the router key: made it 0600 (disconnect puts the mode back)";
      notices?.push(notice);
      this.deps.warn?.(`router connectors: ${notice}`);
    }
    return written.record;
  }

  private release(account: AgentAccount, connection: Connection): void {
    for (const [file, record] of Object.entries(connection.files)) {
      if (!directoryExists(account.dir)) continue;
      const strip =
        account.agent === "codex"
          ? disconnectCodexConfig
          : (text: string) => {
              try {
                const document = JSON.parse(withoutBom(text)) as Record<string, unknown>;
                return connection.prior
                  ? serializeSettings(disconnectClaudeSettings(document, connection.prior), text)
                  : text;
              } catch {
                return text;
              }
            };
      releaseAgentFile(this.backups, account, file, record, strip);
    }
    if (connection.catalog) rmSync(connection.catalog, { force: true });
    this.state.put(account.id, undefined);
  }
}

function view(account: AgentAccount, connection: Connection | undefined): AccountView {
  const options = connection?.options;
  return {
    id: account.id,
    agent: account.agent,
    label: account.label,
    dir: account.dir,
    built_in: account.builtIn,
    installed: account.installed,
    connected: connection !== undefined,
    model: options?.model ?? null,
    effort: options?.effort ?? null,
    subagent_model: options?.subagentModel ?? null,
    subagent_effort: options?.subagentEffort ?? null,
    review_model: options?.reviewModel ?? null,
    small_model: options?.smallModel ?? null,
    replace_lineup: options?.replaceLineup === true,
    files: connection ? Object.keys(connection.files) : [],
  };
}

export { ConnectorError } from "./connector-error.js";
