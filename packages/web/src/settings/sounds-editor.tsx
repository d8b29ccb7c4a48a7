import type { SoundsListing, TypeDefinition } from "@notify/contracts/ui";
import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import { HeaderWithActions } from "../table-header.js";
import { messageOf, useLoad } from "../use-load.js";

const NONE = "none";
/** The select's value for "no choice of my own": PUT sends null and the type plays its default again. */
const DEFAULT = "";

/** The sound a type plays when nothing is chosen for it (docs/desktop.md, "Sounds"). */
function defaultSound(typeId: string, listing: SoundsListing, custom: TypeDefinition | undefined): string {
  const fallback = listing.defaults.info ?? "chime";
  if (custom && !custom.enabled) return fallback;
  return custom?.sound ?? listing.defaults[typeId] ?? fallback;
}

/**
 * /ui/api/sounds: the built-in tones and imported files, importing and deleting a file, and the sound of each
 * notification type (built-in and custom). `typesRound` changes when the Notification types card saved a change.
 */
export function SoundsEditor({ typesRound }: { typesRound: number }) {
  const sounds = useLoad(api.sounds.list);
  const types = useLoad(api.types);
  const [listing, setListing] = useState<SoundsListing>();
  const [message, setMessage] = useState("");
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => setListing(sounds.data), [sounds.data]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `typesRound` is the trigger; `reload` is stable.
  useEffect(() => {
    if (typesRound > 0) types.reload();
  }, [typesRound]);

  const run = async (doing: string, action: () => Promise<string>) => {
    setBusy(true);
    setProblem("");
    setMessage(doing);
    try {
      setMessage(await action());
    } catch (failure) {
      setMessage("");
      setProblem(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  const importFile = (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    void run(`Importing ${file.name}…`, async () => {
      try {
        const imported = await api.sounds.import(file);
        setListing(await api.sounds.list());
        return `Imported ${imported.name} (${imported.format.toUpperCase()})`;
      } finally {
        input.value = "";
      }
    });
  };

  const remove = (name: string) =>
    run(`Deleting ${name}…`, async () => {
      await api.sounds.remove(name);
      setListing(await api.sounds.list());
      return `Deleted ${name}`;
    });

  const choose = (typeId: string, value: string) =>
    run("Saving…", async () => {
      setListing(await api.sounds.setTypes({ [typeId]: value === DEFAULT ? null : value }));
      return "Saved";
    });

  const error = sounds.error ?? types.error;
  const custom = (types.data ?? []).filter((type) => !listing || !(type.id in listing.defaults));
  const rows = listing
    ? [
        ...Object.keys(listing.defaults).map((id) => ({ id, label: id, definition: undefined })),
        ...custom.map((type) => ({ id: type.id, label: type.label, definition: type })),
      ]
    : [];

  return (
    <section className="card sounds" aria-labelledby="sounds-title">
      <h2 id="sounds-title">Sounds</h2>
      {error && <p className="error">{error}</p>}
      <p className="muted" role="status">
        {message}
      </p>
      <div role="alert">{problem && <p className="error">{problem}</p>}</div>
      {listing && (
        <>
          <h3>Sound files</h3>
          <p>
            Built-in tones: <span className="tones">{listing.builtIn.join(", ")}</span>.
          </p>
          {listing.imported.length === 0 ? (
            <p className="muted">No imported sounds.</p>
          ) : (
            <table>
              <caption>Imported sounds</caption>
              <HeaderWithActions columns={["Name", "Format"]} />
              <tbody>
                {listing.imported.map((sound) => (
                  <tr key={sound.name}>
                    <td>
                      <code>{sound.name}</code>
                    </td>
                    <td>{sound.format.toUpperCase()}</td>
                    <td>
                      <button type="button" disabled={busy} onClick={() => void remove(sound.name)}>
                        Delete <span className="visually-hidden">{sound.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="field">
            <label htmlFor="sound-file">Import a sound</label>
            <input
              id="sound-file"
              type="file"
              accept=".wav,.mp3,audio/wav,audio/mpeg"
              aria-describedby="sound-file-help"
              onChange={(event) => importFile(event.currentTarget)}
            />
            <p id="sound-file-help" className="help">
              A .wav or .mp3 file of at most {Math.round(listing.maxBytes / (1024 * 1024))} MB. Its name, without the
              extension, becomes the sound's name; a sound of the same name is replaced.
            </p>
          </div>

          <h3>Sound per type</h3>
          <div className="type-sounds">
            {rows.map(({ id, label, definition }) => {
              const chosen = listing.typeSounds[id] ?? DEFAULT;
              const known =
                chosen === DEFAULT ||
                chosen === NONE ||
                listing.builtIn.includes(chosen) ||
                listing.imported.some((sound) => sound.name === chosen);
              return (
                <div className="field" key={id}>
                  <label htmlFor={`sound-for-${id}`}>
                    <span className="visually-hidden">Sound for </span>
                    {label}
                    {label !== id && <code className="type-id"> {id}</code>}
                  </label>
                  <select
                    id={`sound-for-${id}`}
                    value={chosen}
                    onChange={(event) => void choose(id, event.target.value)}
                  >
                    <option value={DEFAULT}>Default ({defaultSound(id, listing, definition)})</option>
                    {listing.builtIn.map((tone) => (
                      <option key={tone} value={tone}>
                        {tone}
                      </option>
                    ))}
                    {listing.imported.map((sound) => (
                      <option key={sound.name} value={sound.name}>
                        {sound.name}
                      </option>
                    ))}
                    {!known && <option value={chosen}>{chosen} (missing)</option>}
                    <option value={NONE}>None</option>
                  </select>
                </div>
              );
            })}
          </div>
        </>
      )}
    </section>
  );
}
