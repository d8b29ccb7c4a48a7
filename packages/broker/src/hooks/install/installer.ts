import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { EditConflictError, type EditOutcome, editFile } from "../../fs/edit-file.js";
import { ensurePrivateDir, writePrivateFile } from "../../fs/private-files.js";
import { inStyle, textStyle, withoutBom } from "../../fs/text-style.js";
import { AGENTS, type AgentId, displayName } from "../agents.js";
import { addNotify, type HookKind, installedKinds, setHookToken, stripHookToken, stripNotify } from "./entries.js";
import { isNotifyPlugin, OPENCODE_PLUGIN_MARK, opencodePlugin } from "./opencode-plugin.js";
import { SCOPES, type Scope, type Target, type TargetEnv, targetFor } from "./targets.js";

/** A refusal with a message for the person (exit 1 in the CLI); the agent's file is left as it was. */
export class HookInstallError extends Error {
  override name = "HookInstallError";
}

export interface InstallContext {
  /** Notify's data dir: backups and the install record live under `<dataDir>/hooks/`. */
  dataDir: string;
  /** The words that start Notify's CLI (node and the CLI file, or `notify`). */
  program: string[];
  /** Options every hook command carries (e.g. `--data-dir DIR` when not the default). */
  extra?: string[];
  where?: TargetEnv;
  now?: () => Date;
  /**
   * Claude Code only: write `"type": "http"` hooks posting to the broker on `port`, and the hook token into the
   * user's settings `env` (whatever the scope: a project's file never holds it). Absent: `notify hook` commands.
   */
  http?: { port: number; token: string };
}

export interface ChangeResult {
  target: Target;
  changed: boolean;
  /** The copy taken before the change. */
  backup?: string;
  /** What happened, one line. */
  summary: string;
  /** The user settings file the hook token was written into (Claude Code's http hooks, project scope). */
  tokenFile?: string;
}

/** What uninstall needs to restore the file exactly as Notify found it. */
interface InstallRecord {
  agent: AgentId;
  scope: Scope;
  file: string;
  /** False when Notify created the file: uninstall then removes it. */
  existed: boolean;
  /** The backup holding the bytes from before Notify's first install (when the file existed). */
  original?: string;
  /** The file's SHA-256 right after Notify wrote it: equal at uninstall means nobody else changed it since. */
  installedSha256: string;
  /** Notify created the directory (project scope): removed again at uninstall when empty. */
  createdDir: boolean;
  /**
   * The outermost directory Notify created with it (`.github` of `.github/hooks`), when more than the one: each
   * up to it goes too, when empty.
   */
  createdRoot?: string;
}

type Records = Record<string, InstallRecord>;
type Json = Record<string, unknown>;

const sha256 = (bytes: Buffer | string): string => createHash("sha256").update(bytes).digest("hex");
const hooksDir = (context: InstallContext): string => join(context.dataDir, "hooks");
const recordsPath = (context: InstallContext): string => join(hooksDir(context), "installs.json");

function readRecords(context: InstallContext): Records {
  try {
    return JSON.parse(readFileSync(recordsPath(context), "utf8")) as Records;
  } catch {
    return {};
  }
}

function writeRecords(context: InstallContext, records: Records): void {
  ensurePrivateDir(context.dataDir);
  writePrivateFile(recordsPath(context), `${JSON.stringify(records, null, 2)}\n`);
}

/** Whose edit a backup was taken for: Notify's hooks, or its MCP server entry (mcp/install.ts). */
export type BackupKind = "hooks" | "mcp";

/**
 * A copy of the bytes from before a change, 0600 in the data dir's 0700 `hooks/backups/`, named for what was
 * edited and with the edited file's own extension: `hooks-claude-code-user-<time>.json`,
 * `mcp-codex-user-<time>.toml`. Copies taken before issue 31 are named `<agent>-<scope>-<time>.json` whatever the
 * file; uninstall restores from the path kept in the install record, so those restore as before.
 */
function backup(context: InstallContext, target: Target, kind: BackupKind, bytes: Buffer): string {
  const dir = join(hooksDir(context), "backups");
  ensurePrivateDir(context.dataDir);
  ensurePrivateDir(hooksDir(context));
  ensurePrivateDir(dir);
  const stamp = (context.now?.() ?? new Date()).toISOString().replaceAll(":", "-");
  const name = `${kind}-${target.agent}-${target.scope}-${stamp}`;
  const extension = extname(target.file) || ".bak";
  let path = join(dir, `${name}${extension}`);
  for (let n = 2; existsSync(path); n += 1) path = join(dir, `${name}-${n}${extension}`);
  writePrivateFile(path, bytes);
  return path;
}

/** The file's JSON object, or a refusal naming the file; never a partial read. */
function parseSettings(target: Target, bytes: Buffer): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutBom(bytes.toString("utf8")));
  } catch (error) {
    throw new HookInstallError(
      `cannot parse ${target.file} (${(error as Error).message}); it was left as it was: fix it, then run this again`,
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new HookInstallError(`${target.file} does not hold a JSON object; it was left as it was`);
  }
  const hooks = (parsed as Json).hooks;
  if (hooks !== undefined && (hooks === null || typeof hooks !== "object" || Array.isArray(hooks))) {
    throw new HookInstallError(`${target.file}: "hooks" is not an object; it was left as it was`);
  }
  return parsed as Json;
}

/**
 * Adds Notify's hook entries to the agent's settings: a JSON merge that touches only Notify's own entries,
 * idempotent, with a backup into the data dir before every change. Refuses when the agent is not installed (its
 * per-user directory is missing: nothing is created for it) or the file cannot be parsed (left as it was).
 */
export function install(agent: AgentId, scope: Scope, context: InstallContext): ChangeResult {
  const target = targetFor(agent, scope, context.where);
  if (agent === "opencode") {
    return installInto(target, context, "hooks", (bytes) => {
      const text = opencodePlugin(context.program, context.extra);
      if (bytes === undefined) return text;
      const before = bytes.toString("utf8");
      if (!isNotifyPlugin(before)) throw notNotifys(target);
      return before === text ? undefined : text;
    });
  }
  const http = agent === "claude-code" ? context.http : undefined;
  const tokenHere = http !== undefined && scope === "user";
  const result = installInto(
    target,
    context,
    "hooks",
    settingsEdit(target, (document) => {
      addNotify(document, agent, context.program, context.extra, http);
      if (tokenHere) setHookToken(document, http.token);
    }),
  );
  if (http === undefined || tokenHere) return result;
  // A project's http hooks name $NOTIFY_HOOK_TOKEN; its value goes into the user's own settings, never the project's.
  const user = targetFor(agent, "user", context.where);
  const token = installInto(
    user,
    context,
    "hooks",
    settingsEdit(user, (document) => setHookToken(document, http.token)),
  );
  return {
    ...result,
    changed: result.changed || token.changed,
    tokenFile: user.file,
    summary: result.changed ? result.summary : `${result.summary} (hook token renewed in ${user.file})`,
  };
}

/**
 * The edit installInto makes to a settings file: `change` applied to its parsed JSON (an empty object when the file
 * is new), written back in the file's own style, or undefined when it changed nothing in a file that exists.
 */
function settingsEdit(
  target: Target,
  change: (document: Json) => void,
): (bytes: Buffer | undefined) => string | undefined {
  return (bytes) => {
    const document = bytes !== undefined ? parseSettings(target, bytes) : {};
    const updated = structuredClone(document);
    change(updated);
    if (bytes !== undefined && isDeepStrictEqual(updated, document)) return undefined;
    return inStyle(`${JSON.stringify(updated, null, 2)}\n`, textStyle(bytes?.toString("utf8")));
  };
}

/**
 * Removes Notify's entries. When the file is exactly as Notify left it, the user's original comes back byte for
 * byte (or the file goes, when Notify created it); otherwise only Notify's entries are taken out of the JSON.
 */
export function uninstall(agent: AgentId, scope: Scope, context: InstallContext): ChangeResult {
  const target = targetFor(agent, scope, context.where);
  if (agent === "opencode") {
    // Notify's own plugin file goes whole, even when changed since; a file of the person's is never touched.
    return uninstallFrom(target, context, "hooks", "Notify's plugin", (bytes) => {
      if (!isNotifyPlugin(bytes.toString("utf8"))) throw notNotifys(target);
      return null;
    });
  }
  return uninstallFrom(target, context, "hooks", "Notify's entries", (bytes) => {
    const document = parseSettings(target, bytes);
    // The user's settings also lose the hook token; a project's never held it.
    const token = agent === "claude-code" && scope === "user" && stripHookToken(document);
    if (!stripNotify(document, agent) && !token) return undefined;
    return inStyle(`${JSON.stringify(document, null, 2)}\n`, textStyle(bytes.toString("utf8")));
  });
}

/** Removes `dir` when empty, then each parent up to `root` (a directory Notify created) while empty. */
function removeEmpty(dir: string, root: string | undefined): void {
  let current = dir;
  for (;;) {
    if (!existsSync(current) || readdirSync(current).length > 0) return;
    rmdirSync(current);
    if (root === undefined || current === root || !current.startsWith(`${root}/`)) return;
    current = dirname(current);
  }
}

/** A plugin file at Notify's path that Notify did not write. */
const notNotifys = (target: Target): HookInstallError =>
  new HookInstallError(
    `${target.file} is not Notify's plugin (its first line is not "${OPENCODE_PLUGIN_MARK}"); it was left as it was`,
  );

/** editFile with a refusal the CLI shows when the file kept changing. */
function edit<T>(target: Target, plan: Parameters<typeof editFile<T>>[1]): EditOutcome<T> {
  try {
    return editFile(target.file, plan);
  } catch (error) {
    if (error instanceof EditConflictError) throw new HookInstallError(error.message);
    throw error;
  }
}

/**
 * The install rules Notify's hooks and its MCP entry share: refuse when the agent is not installed, create the
 * project's directory only when needed (and take it away again when nothing was written), edit through editFile,
 * back up what was there (a `kind` backup), and keep the record uninstall restores from. `edited` gives the new
 * text, or undefined when the file already holds Notify's entries.
 */
export function installInto<T extends Target>(
  target: T,
  context: InstallContext,
  kind: BackupKind,
  edited: (bytes: Buffer | undefined) => string | undefined,
): ChangeResult & { target: T } {
  if (!existsSync(target.agentHome)) {
    throw new HookInstallError(
      `${displayName(target.agent)} does not seem to be installed: ${target.agentHome} does not exist (nothing was changed)`,
    );
  }
  const createdDir = !existsSync(target.dir);
  // mkdirSync gives the first directory it created: `.github` when neither `.github` nor `.github/hooks` existed.
  const createdRoot = createdDir ? mkdirSync(target.dir, { recursive: true }) : undefined;
  const outcome = edit(target, (bytes) => {
    const text = edited(bytes);
    return { content: text, result: text ?? "" };
  });
  if (!outcome.changed) {
    if (createdDir) removeEmpty(target.dir, createdRoot);
    return { target, changed: false, summary: `already installed in ${target.file}` };
  }
  const bytes = outcome.before;
  const text = outcome.result;
  const records = readRecords(context);
  const previous = records[target.file];
  const taken = bytes !== undefined ? backup(context, target, kind, bytes) : undefined;
  // Re-installing over Notify's own untouched write keeps the record of the user's original file.
  const keepOriginal = previous !== undefined && bytes !== undefined && sha256(bytes) === previous.installedSha256;
  const record: InstallRecord = keepOriginal
    ? { ...previous, installedSha256: sha256(text) }
    : {
        agent: target.agent,
        scope: target.scope,
        file: target.file,
        existed: bytes !== undefined,
        ...(taken !== undefined ? { original: taken } : {}),
        installedSha256: sha256(text),
        createdDir,
        ...(createdRoot !== undefined && createdRoot !== target.dir ? { createdRoot } : {}),
      };
  records[target.file] = record;
  writeRecords(context, records);
  const result: ChangeResult & { target: T } = { target, changed: true, summary: `installed into ${target.file}` };
  if (taken !== undefined) result.backup = taken;
  return result;
}

type UninstallStep = "missing" | "restored" | "removed" | "stripped" | "none";

/**
 * The uninstall rules the hooks and the MCP entry share: a file exactly as Notify left it gets the user's original
 * back byte for byte (or goes, when Notify created it, with the directory Notify created when it is left empty);
 * a file changed since loses only Notify's part (`stripped` gives the text without it, or undefined when there is
 * none). `what` names that part in the summary.
 */
export function uninstallFrom<T extends Target>(
  target: T,
  context: InstallContext,
  kind: BackupKind,
  what: string,
  stripped: (bytes: Buffer) => string | null | undefined,
): ChangeResult & { target: T } {
  const records = readRecords(context);
  const record = records[target.file];
  const outcome = edit<UninstallStep>(target, (bytes) => {
    if (bytes === undefined) return { content: undefined, result: "missing" };
    if (record !== undefined && sha256(bytes) === record.installedSha256) {
      if (record.existed && record.original !== undefined) {
        return { content: readFileSync(record.original), result: "restored" };
      }
      if (!record.existed) return { content: null, result: "removed" };
    }
    const text = stripped(bytes);
    if (text === null) return { content: null, result: "removed" };
    return text === undefined ? { content: undefined, result: "none" } : { content: text, result: "stripped" };
  });
  if (outcome.result === "missing" || outcome.result === "none") {
    if (outcome.result === "missing" && record !== undefined) {
      delete records[target.file];
      writeRecords(context, records);
    }
    return {
      target,
      changed: false,
      summary:
        outcome.result === "missing"
          ? `not installed (${target.file} does not exist)`
          : `not installed in ${target.file}`,
    };
  }
  const taken = backup(context, target, kind, outcome.before as Buffer);
  if (outcome.result === "removed" && record?.createdDir) removeEmpty(target.dir, record.createdRoot);
  if (record !== undefined) {
    delete records[target.file];
    writeRecords(context, records);
  }
  const summary =
    outcome.result === "restored"
      ? `restored ${target.file} as it was before`
      : outcome.result === "removed"
        ? `removed ${target.file}`
        : `removed ${what} from ${target.file}`;
  return { target, changed: true, backup: taken, summary };
}

export interface InstallStatus {
  agent: AgentId;
  scope: Scope;
  file: string;
  /** The agent's per-user directory exists. */
  agentInstalled: boolean;
  /** Notify's events found in the file; null when the file cannot be parsed. */
  events: string[] | null;
  /** What each of those events uses: an `http` entry (Claude Code posts to the broker) or a `command`. */
  kinds: Record<string, HookKind> | null;
}

/** What Notify's OpenCode plugin hooks into (opencode-plugin.ts), as `notify hooks status` lists it. */
const OPENCODE_KINDS: Record<string, HookKind> = {
  "tool.execute.before": "command",
  "session.idle": "command",
  "chat.message": "command",
  "session.deleted": "command",
};

/** What is installed where (every agent, both scopes, for the current project). */
export function installStatus(context: Pick<InstallContext, "where">): InstallStatus[] {
  const rows: InstallStatus[] = [];
  for (const agent of AGENTS) {
    for (const scope of SCOPES) {
      const target = targetFor(agent, scope, context.where);
      let kinds: Record<string, HookKind> | null = {};
      if (existsSync(target.file) && agent === "opencode") {
        kinds = isNotifyPlugin(readFileSync(target.file, "utf8")) ? OPENCODE_KINDS : {};
      } else if (existsSync(target.file)) {
        try {
          kinds = installedKinds(parseSettings(target, readFileSync(target.file)), agent);
        } catch {
          kinds = null;
        }
      }
      const events = kinds === null ? null : Object.keys(kinds);
      rows.push({ agent, scope, file: target.file, agentInstalled: existsSync(target.agentHome), events, kinds });
    }
  }
  return rows;
}

/**
 * What each installed Notify hook event uses, per agent and scope (`notify hooks status`, doctor): `http` when
 * Claude Code posts it to the broker itself, `command` when it runs `notify hook`. Null for a file that cannot be
 * parsed; an empty record where nothing is installed.
 */
export function hookKinds(
  context: Pick<InstallContext, "where"> = {},
): { agent: AgentId; scope: Scope; file: string; kinds: Record<string, HookKind> | null }[] {
  return installStatus(context).map(({ agent, scope, file, kinds }) => ({ agent, scope, file, kinds }));
}
