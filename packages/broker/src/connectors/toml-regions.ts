import { parse, TomlError } from "smol-toml";

/**
 * The one editor of Codex's config.toml, for the router connectors and `notify mcp install codex` alike: it reads
 * the file with a TOML parser first (a file Codex cannot read is refused, naming the line, and never appended to),
 * edits it line by line so every byte Notify did not write is kept, and parses the result before it is written.
 *
 * The router's lines (docs/connectors.md, "Writing rules": Notify edits only its own lines, in marker-comment regions
 * of the TOML file) live between a `# >>> notify router ...` and a `# <<< notify router ...` comment; an owner's line
 * that Notify's region would contradict is commented out with OWNER_PREFIX and un-commented when the region goes.
 * The MCP server is one table, `[mcp_servers.notify]`, found by describeLines (mcp/install.ts). The parser only
 * reads: re-emitting the owner's file from a parse would lose its layout and comments.
 */

/** Where and why a TOML text does not parse: what a refusal names. */
export class TomlSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = "TomlSyntaxError";
  }
}

/**
 * The document `text` holds (a byte order mark before it is allowed), or a TomlSyntaxError. Integers past 2^53 are
 * read as BigInt, not refused: a file is refused only for what no TOML reader takes.
 */
export function parseToml(text: string): Record<string, unknown> {
  try {
    return parse(text.startsWith(BOM) ? text.slice(BOM.length) : text, { integersAsBigInt: "asNeeded" });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "");
    throw new TomlSyntaxError(error.line, error.column, reason);
  }
}

/** Why `text` is no TOML document (its line, column and reason), or undefined when it parses. */
export function tomlProblem(text: string): TomlSyntaxError | undefined {
  try {
    parseToml(text);
    return undefined;
  } catch (error) {
    if (error instanceof TomlSyntaxError) return error;
    throw error;
  }
}

export const BEGIN = "# >>> notify router";
export const END = "# <<< notify router";
/** Put before an owner's line that a managed region overrides; removed again on strip. */
export const OWNER_PREFIX = "#notify-router-owner# ";

/** One region: its name (for the markers) and its lines. */
export interface Region {
  name: string;
  lines: string[];
}

export const beginLine = (name: string): string =>
  `${BEGIN} ${name} (written by Notify; \`notify router disconnect\` removes it) >>>`;
export const endLine = (name: string): string => `${END} ${name} <<<`;

export const regionLines = (region: Region): string[] => [
  beginLine(region.name),
  ...region.lines,
  endLine(region.name),
];

/**
 * The file's lines and its newline (CRLF kept when the owner uses it); `trailing`: it ended with a newline; `bom`:
 * it began with a UTF-8 byte order mark, which stays the file's first character (Codex refuses one anywhere else).
 */
export interface Lines {
  lines: string[];
  newline: string;
  trailing: boolean;
  bom?: boolean;
}

const BOM = "\uFEFF";

export function splitLines(text: string): Lines {
  const bom = text.startsWith(BOM);
  const body = bom ? text.slice(BOM.length) : text;
  const newline = body.includes("\r\n") ? "\r\n" : "\n";
  if (body === "") return { lines: [], newline, trailing: true, bom };
  const trailing = body.endsWith("\n");
  const content = trailing ? body.slice(0, body.endsWith("\r\n") ? -2 : -1) : body;
  return { lines: content.split(/\r?\n/), newline, trailing, bom };
}

export const joinLines = ({ lines, newline, trailing, bom }: Lines): string =>
  (bom ? BOM : "") + (lines.length === 0 ? "" : lines.join(newline) + (trailing ? newline : ""));

/** Removes every managed region and un-comments the owner's lines: the file as it would be without Notify. */
export function stripRegions(text: string): string {
  const parsed = splitLines(text);
  const kept: string[] = [];
  let inside = false;
  for (const line of parsed.lines) {
    if (!inside && line.startsWith(BEGIN)) {
      inside = true;
      continue;
    }
    if (inside) {
      if (line.startsWith(END)) inside = false;
      continue;
    }
    kept.push(line.startsWith(OWNER_PREFIX) ? line.slice(OWNER_PREFIX.length) : line);
  }
  return joinLines({ ...parsed, lines: kept });
}

/** Whether the text holds a managed region. */
export const hasRegions = (text: string): boolean => splitLines(text).lines.some((line) => line.startsWith(BEGIN));

/** Per line: the table it belongs to (`""` for the root) and whether it is a key line outside multi-line strings. */
interface LineInfo {
  table: string;
  key: string | undefined;
  header: boolean;
}

const HEADER = /^\s*\[\s*([^[\]]+?)\s*\]\s*(#.*)?$/;
const ARRAY_HEADER = /^\s*\[\[\s*([^[\]]+?)\s*\]\]\s*(#.*)?$/;
const KEY = /^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*=/;

const unquote = (key: string): string =>
  key.startsWith('"') ? (JSON.parse(key) as string) : key.startsWith("'") ? key.slice(1, -1) : key;

/** Table names without spaces around the dots or quotes on bare parts: `model_providers."x"` -> `model_providers.x`. */
const tableName = (raw: string): string =>
  raw
    .split(/\s*\.\s*(?=(?:[^"']|"[^"]*"|'[^']*')*$)/)
    .map((part) => unquote(part.trim()))
    .join(".");

export function describeLines(lines: string[]): LineInfo[] {
  const infos: LineInfo[] = [];
  let table = "";
  let openString: string | undefined;
  for (const line of lines) {
    if (openString !== undefined) {
      infos.push({ table, key: undefined, header: false });
      if (line.includes(openString)) openString = undefined;
      continue;
    }
    const header = ARRAY_HEADER.exec(line) ?? HEADER.exec(line);
    if (header?.[1] !== undefined && !line.trimStart().startsWith("#")) {
      table = tableName(header[1]);
      infos.push({ table, key: undefined, header: true });
      continue;
    }
    const key = KEY.exec(line);
    infos.push({ table, key: key?.[1] !== undefined ? unquote(key[1]) : undefined, header: false });
    // A multi-line string opened on this line (an odd count of its delimiter) runs on to a later line.
    for (const delimiter of ['"""', "'''"]) {
      if (key && line.split(delimiter).length % 2 === 0) openString = delimiter;
    }
  }
  return infos;
}
