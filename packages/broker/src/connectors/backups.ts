import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import type { AgentFileBackup } from "@notify/contracts/ui";
import { editFile } from "../fs/edit-file.js";
import { ensurePrivateDir, writePrivateFile } from "../fs/private-files.js";
import type { ConnectorAgent } from "./accounts.js";
import { readJsonFile, writeJsonFile } from "./file-store.js";

/** One copy of an agent file taken before Notify changed it (the shared shape in @notify/contracts/ui). */
export type Backup = AgentFileBackup;

interface Stored extends Backup {
  path: string;
}

/**
 * Copies of agent files under `<dataDir>/connectors/backups/`, with an index beside them. A copy is taken before
 * every change Notify makes; any copy can be put back, and putting one back first copies the current file.
 */
export class BackupStore {
  private readonly dir: string;
  private readonly indexPath: string;

  constructor(
    private readonly dataDir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.dir = join(dataDir, "connectors", "backups");
    this.indexPath = join(this.dir, "index.json");
  }

  private index(): Stored[] {
    return readJsonFile<Stored[]>(this.indexPath, []);
  }

  /** Copies `file` (which must exist) and returns the record. */
  take(agent: ConnectorAgent, account: string, file: string, reason: string): Backup {
    return this.takeBytes(agent, account, file, readFileSync(file), reason);
  }

  /** Keeps `bytes`, the content `file` had, as a copy (0600 in a 0700 directory). */
  takeBytes(agent: ConnectorAgent, account: string, file: string, bytes: Buffer, reason: string): Backup {
    ensurePrivateDir(this.dataDir);
    ensurePrivateDir(join(this.dataDir, "connectors"));
    ensurePrivateDir(this.dir);
    const stamp = this.now().toISOString();
    const index = this.index();
    let id = `${stamp.replaceAll(/[-:.]/g, "").replace("T", "-").replace("Z", "")}-${agent}-${basename(file).replace(/\W/g, "_")}`;
    for (let n = 2; index.some((entry) => entry.id === id); n += 1) id = `${id.replace(/-\d+$/, "")}-${n}`;
    // The agent file's own extension (`.toml`, `.json`), so the copy opens as what it is; copies taken before issue
    // 31 end in `.bak` and are found through the index, which keeps every copy's path.
    const path = join(this.dir, `${id}${extname(file) || ".bak"}`);
    writePrivateFile(path, bytes);
    const stored: Stored = { id, agent, account, file, created_at: stamp, bytes: bytes.length, reason, path };
    writeJsonFile(this.indexPath, [...index, stored]);
    return publicView(stored);
  }

  /** The copies whose bytes are still there, newest first. */
  list(): Backup[] {
    return this.index()
      .filter((entry) => existsSync(entry.path))
      .reverse()
      .map(publicView);
  }

  bytesOf(id: string): Buffer | undefined {
    const entry = this.index().find((candidate) => candidate.id === id);
    return entry && existsSync(entry.path) ? readFileSync(entry.path) : undefined;
  }

  find(id: string): Backup | undefined {
    const entry = this.index().find((candidate) => candidate.id === id && existsSync(candidate.path));
    return entry ? publicView(entry) : undefined;
  }

  /**
   * Puts copy `id` back at its file: the current file (when there is one) is copied first. The directory must still
   * exist: a restore never creates an agent's directory. Returns the copy taken first, if any.
   */
  restore(id: string): { restored: Backup; saved?: Backup } | undefined {
    const entry = this.index().find((candidate) => candidate.id === id && existsSync(candidate.path));
    if (!entry) return undefined;
    const bytes = readFileSync(entry.path);
    // Through a symlink, keeping the file's mode, never over an edit made meanwhile (fs/edit-file.ts).
    const outcome = editFile(entry.file, () => ({ content: bytes, result: undefined }));
    const saved =
      outcome.before !== undefined
        ? this.takeBytes(entry.agent, entry.account, entry.file, outcome.before, "restore")
        : undefined;
    return { restored: publicView(entry), ...(saved ? { saved } : {}) };
  }
}

const publicView = ({ path: _path, ...backup }: Stored): Backup => backup;

/** The directory holding `file` exists (restores and writes never create one). */
export const directoryExists = (dir: string): boolean => existsSync(dir) && statSync(dir).isDirectory();
