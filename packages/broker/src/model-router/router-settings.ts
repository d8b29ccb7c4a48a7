import { randomBytes } from "node:crypto";
import { DEFAULT_NATIVE_BASE_URL, destinationProblem } from "@notify/router/host";
import { readConfigFile, updateConfigFile } from "../config/config-file.js";

export const DEFAULT_ROUTER_MAX_BODY = 32 * 1024 * 1024;
export const DEFAULT_LEDGER_RETENTION_DAYS = 30;

export interface RouterKeys {
  enabled: boolean;
  key: string | undefined;
  maxRequestBodyBytes: number;
  ledgerRetentionDays: number;
  /** RouterNativeBaseUrl: the agent's own vendor; a value breaking the destination rule falls back to the default. */
  nativeBaseUrl: string;
}

/** `nrk_` and 32 random bytes, base64url. */
export function generateRouterKey(): string {
  return `nrk_${randomBytes(32).toString("base64url")}`;
}

const positive = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : fallback;

/**
 * The router's config.json keys (docs/router.md, "config.json keys"): RouterEnabled (false), RouterKey (generated when
 * first enabled), RouterMaxRequestBodyBytes (32 MiB), RouterLedgerRetentionDays (30), RouterNativeBaseUrl (the vendor's
 * public API). Held in memory, written through atomically.
 */
export class RouterSettingsFile {
  private current: RouterKeys;

  constructor(private readonly dataDir: string) {
    this.current = this.read();
    // A router switched on in config.json by hand (or by any path that skipped update()) must still have a key:
    // docs/router.md, "config.json keys": it is generated when the router is first enabled, whichever way that
    // happened.
    if (this.current.enabled && this.current.key === undefined) this.update({});
  }

  private read(): RouterKeys {
    const contents = readConfigFile(this.dataDir);
    return {
      enabled: contents.RouterEnabled === true,
      key: typeof contents.RouterKey === "string" && contents.RouterKey.length > 0 ? contents.RouterKey : undefined,
      maxRequestBodyBytes: positive(contents.RouterMaxRequestBodyBytes, DEFAULT_ROUTER_MAX_BODY),
      ledgerRetentionDays: positive(contents.RouterLedgerRetentionDays, DEFAULT_LEDGER_RETENTION_DAYS),
      nativeBaseUrl:
        typeof contents.RouterNativeBaseUrl === "string" &&
        destinationProblem(contents.RouterNativeBaseUrl) === undefined
          ? contents.RouterNativeBaseUrl.replace(/\/+$/, "")
          : DEFAULT_NATIVE_BASE_URL,
    };
  }

  get(): RouterKeys {
    return this.current;
  }

  private readonly listeners = new Set<(keys: RouterKeys) => void>();

  /** Called after every update (the connectors rewrite connected agents when the key changed). */
  onChange(listener: (keys: RouterKeys) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies a change; turning the router on generates the key when there is none yet. */
  update(change: {
    enabled?: boolean;
    maxRequestBodyBytes?: number;
    ledgerRetentionDays?: number;
    regenerateKey?: boolean;
  }): RouterKeys {
    updateConfigFile(this.dataDir, (contents) => {
      if (change.enabled !== undefined) contents.RouterEnabled = change.enabled;
      if (change.maxRequestBodyBytes !== undefined) contents.RouterMaxRequestBodyBytes = change.maxRequestBodyBytes;
      if (change.ledgerRetentionDays !== undefined) contents.RouterLedgerRetentionDays = change.ledgerRetentionDays;
      const hasKey = typeof contents.RouterKey === "string" && contents.RouterKey.length > 0;
      if (change.regenerateKey || (contents.RouterEnabled === true && !hasKey))
        contents.RouterKey = generateRouterKey();
    });
    this.current = this.read();
    for (const listener of this.listeners) listener(this.current);
    return this.current;
  }
}
