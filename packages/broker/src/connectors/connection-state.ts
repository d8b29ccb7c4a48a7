import { join } from "node:path";
import type { ConnectorAgent } from "./accounts.js";
import type { ClaudePrior } from "./claude-settings.js";
import { readJsonFile, writeJsonFile } from "./file-store.js";

/** What the owner chose when connecting (kept so a configuration change can write the same again). */
export interface ConnectOptions {
  model: string;
  effort?: string | undefined;
  subagentModel?: string | undefined;
  subagentEffort?: string | undefined;
  reviewModel?: string | undefined;
  smallModel?: string | undefined;
  replaceLineup?: boolean | undefined;
}

/** One agent file Notify wrote. */
export interface FileRecord {
  /** The file was there before Notify's first write (false: disconnect removes it). */
  existed: boolean;
  /** The backup holding the bytes from before the first write; dropped once the owner changed the file since. */
  original?: string | undefined;
  /** SHA-256 of Notify's last write: equal at disconnect means nobody changed the file since. */
  writtenSha256: string;
  /** The mode the file had before Notify made it 0600 (it was readable by others); a restore puts it back. */
  mode?: number | undefined;
}

export interface Connection {
  agent: ConnectorAgent;
  dir: string;
  options: ConnectOptions;
  files: Record<string, FileRecord>;
  /** Claude Code: what the keys Notify sets held before. */
  prior?: ClaudePrior;
  /** Codex: the generated catalogue's path (in the data dir). */
  catalog?: string;
  connected_at: string;
  updated_at: string;
}

export type Connections = Record<string, Connection>;

/** `<dataDir>/connectors/state.json`: the connected accounts by account id. */
export class ConnectionState {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, "connectors", "state.json");
  }

  all(): Connections {
    return readJsonFile<Connections>(this.path, {});
  }

  get(account: string): Connection | undefined {
    return this.all()[account];
  }

  put(account: string, connection: Connection | undefined): void {
    const all = this.all();
    if (connection === undefined) delete all[account];
    else all[account] = connection;
    writeJsonFile(this.path, all);
  }
}
