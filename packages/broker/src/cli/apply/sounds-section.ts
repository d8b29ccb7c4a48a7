import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { basename, extname, isAbsolute, join } from "node:path";
import { isTypeId } from "../../notifications/type-ids.js";
import type { ImportedSound } from "../../presentation/sounds/sound-library.js";
import { type ApplySection, type Change, isObject, type Step, ui, unknownKeys } from "./section.js";

const MAX_SOUND_BYTES = 10 * 1024 * 1024;
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

interface SoundListing {
  imported: ImportedSound[];
  typeSounds: Record<string, string>;
}

/**
 * `sounds` (docs/apply.md, docs/desktop.md): `files` maps a sound name to a .wav or .mp3 path (relative to the apply
 * file), uploaded when the broker does not hold the same bytes; `types` maps a type ID to a sound name or `none`.
 * With --prune, imported sounds and type choices the file does not name are removed.
 */
export const soundsSection: ApplySection = {
  key: "sounds",
  secrets: () => [],
  parse(value, problems) {
    if (!isObject(value)) {
      problems.push("sounds must be an object with files and/or types");
      return undefined;
    }
    const before = problems.length;
    unknownKeys(value, ["files", "types"], "sounds", problems);
    const files: Record<string, string> = {};
    if (value.files !== undefined) {
      if (!isObject(value.files)) problems.push("sounds.files must map sound names to file paths");
      else
        for (const [name, path] of Object.entries(value.files)) {
          if (!NAME.test(name))
            problems.push(`sounds.files.${name}: a sound name is 1-64 lowercase letters, digits, - or _`);
          if (typeof path !== "string" || ![".wav", ".mp3"].includes(extname(path).toLowerCase())) {
            problems.push(`sounds.files.${name} must be the path of a .wav or .mp3 file`);
          } else files[name] = path;
        }
    }
    const types: Record<string, string> = {};
    if (value.types !== undefined) {
      if (!isObject(value.types)) problems.push("sounds.types must map type IDs to sound names");
      else
        for (const [typeId, sound] of Object.entries(value.types)) {
          if (!isTypeId(typeId)) problems.push(`sounds.types.${typeId} is not a valid type ID`);
          if (typeof sound !== "string") problems.push(`sounds.types.${typeId} must be a sound name or none`);
          else types[typeId] = sound;
        }
    }
    if (problems.length > before) return undefined;
    return {
      async plan({ client, prune, baseDir }, planProblems) {
        const current = await ui<SoundListing>(client, "GET", "/sounds");
        const steps: Step[] = [];
        const held = new Map(current.imported.map((sound) => [sound.name, sound]));
        for (const [name, path] of Object.entries(files)) {
          const full = isAbsolute(path) ? path : join(baseDir, path);
          let bytes: Buffer;
          try {
            if (statSync(full).size > MAX_SOUND_BYTES) {
              planProblems.push(`sounds.files.${name}: ${basename(path)} is larger than 10 MB`);
              continue;
            }
            bytes = readFileSync(full);
          } catch (error) {
            planProblems.push(`sounds.files.${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code})`);
            continue;
          }
          const existing = held.get(name);
          const digest = createHash("sha256").update(bytes).digest("hex");
          const format = extname(path).toLowerCase().slice(1);
          if (existing && existing.sha256 === digest && existing.format === format) {
            steps.push({ changes: [{ action: "unchanged", kind: "sound", name }] });
            continue;
          }
          const change: Change = existing
            ? { action: "update", kind: "sound", name, fields: ["file"] }
            : { action: "create", kind: "sound", name };
          // The broker checks the bytes (a file that lies about its type is refused then, with its message).
          steps.push({
            changes: [change],
            run: async () => {
              await ui(client, "PUT", `/sounds/files/${encodeURIComponent(`${name}.${format}`)}`, bytes);
            },
          });
        }
        const typeChange: Record<string, string | null> = {};
        const typeChanges: Change[] = [];
        for (const [typeId, sound] of Object.entries(types)) {
          const had = current.typeSounds[typeId];
          if (had === sound) typeChanges.push({ action: "unchanged", kind: "type sound", name: typeId });
          else {
            typeChange[typeId] = sound;
            typeChanges.push({ action: had === undefined ? "create" : "update", kind: "type sound", name: typeId });
          }
        }
        if (prune) {
          for (const typeId of Object.keys(current.typeSounds)) {
            if (types[typeId] !== undefined) continue;
            typeChange[typeId] = null;
            typeChanges.push({ action: "delete", kind: "type sound", name: typeId, note: "not in sounds.types" });
          }
        }
        if (typeChanges.length > 0) {
          const changed = Object.keys(typeChange).length > 0;
          steps.push({
            changes: typeChanges,
            ...(changed
              ? {
                  run: async () => {
                    await ui(client, "PUT", "/sounds/types", typeChange);
                  },
                }
              : {}),
          });
        }
        if (prune) {
          for (const sound of current.imported) {
            if (files[sound.name] !== undefined) continue;
            steps.push({
              changes: [{ action: "delete", kind: "sound", name: sound.name, note: "not in sounds.files" }],
              run: async () => {
                await ui(client, "DELETE", `/sounds/files/${encodeURIComponent(sound.name)}`);
              },
            });
          }
        }
        return steps;
      },
    };
  },
};
