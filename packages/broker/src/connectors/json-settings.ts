import { inStyle, textStyle, withoutBom } from "../fs/text-style.js";
import { ConnectorError } from "./connector-error.js";
import { readIfExists } from "./file-store.js";

type Json = Record<string, unknown>;

/** A settings file's JSON object ({} when there is none); a file that is not one is refused and left as it was. */
export function parseSettingsFile(file: string): Json {
  return parseSettingsText(readIfExists(file)?.toString("utf8"), file);
}

/** `text` (the content of `file`, undefined when there is none) as a settings object, or the same refusal. */
export function parseSettingsText(text: string | undefined, file: string): Json {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutBom(text));
  } catch (error) {
    throw new ConnectorError(
      409,
      `cannot parse ${file} (${(error as Error).message}); it was left as it was: fix it, then connect again`,
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConnectorError(409, `${file} does not hold a JSON object; it was left as it was`);
  }
  return parsed as Json;
}

/**
 * Two-space JSON with a final newline, as Claude Code writes its own settings; with `like` (the file's current text),
 * its byte order mark and line ends are kept.
 */
export const serializeSettings = (document: Json, like?: string): string =>
  inStyle(`${JSON.stringify(document, null, 2)}\n`, textStyle(like));
