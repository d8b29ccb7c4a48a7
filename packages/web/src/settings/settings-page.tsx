import type { PresentationPatch, PresentationSettings } from "@notify/contracts/ui";
import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import { messageOf, useLoad } from "../use-load.js";
import { SoundsEditor } from "./sounds-editor.js";
import { TypesEditor } from "./types-editor.js";

const SWITCHES: { key: keyof PresentationSettings; label: string; help: string }[] = [
  {
    key: "pauseNotifications",
    label: "Pause notifications",
    help: "No toasts and no sounds. Notifications are still stored.",
  },
  { key: "doNotDisturb", label: "Do not disturb", help: "Toasts still show; sounds are muted." },
  { key: "soundsEnabled", label: "Play sounds", help: "A sound with each toast." },
  {
    key: "playCriticalSoundsDuringDoNotDisturb",
    label: "Critical sounds during Do not disturb",
    help: "Critical notifications still make a sound.",
  },
];

/**
 * The presentation keys (docs/desktop.md, "Local presentation rules"), each saved to config.json as soon as it changes.
 */
export function SettingsPage() {
  const { data, error } = useLoad(api.presentation);
  const [settings, setSettings] = useState<PresentationSettings>();
  const [status, setStatus] = useState<string>("");
  const [typesRound, setTypesRound] = useState(0);
  useEffect(() => setSettings(data), [data]);

  const save = async (patch: PresentationPatch) => {
    if (!settings) return;
    setSettings({ ...settings, ...patch } as PresentationSettings);
    setStatus("Saving…");
    try {
      setSettings(await api.savePresentation(patch));
      setStatus("Saved");
    } catch (failure) {
      setStatus(`Not saved: ${messageOf(failure)}`);
    }
  };

  return (
    <section aria-labelledby="settings-title">
      <div className="page-head">
        <h1 id="settings-title">Settings</h1>
        <p className="muted" role="status">
          {status}
        </p>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {settings && (
        <form className="card settings" onSubmit={(event) => event.preventDefault()}>
          <h2>Toasts and sounds</h2>
          {SWITCHES.map(({ key, label, help }) => (
            <div className="field check" key={key}>
              <input
                id={`set-${key}`}
                type="checkbox"
                checked={settings[key] as boolean}
                onChange={(event) => void save({ [key]: event.target.checked })}
                aria-describedby={`set-${key}-help`}
              />
              <label htmlFor={`set-${key}`}>{label}</label>
              <p id={`set-${key}-help`} className="help">
                {help}
              </p>
            </div>
          ))}
          <NumberField
            id="volume"
            label="Volume"
            help="0-100; at 0 nothing is audible."
            min={0}
            max={100}
            value={settings.volume}
            onSave={(volume) => void save({ volume })}
          />
          <NumberField
            id="maxVisibleToasts"
            label="Most toasts at once"
            help="1-20; more wait their turn."
            min={1}
            max={20}
            value={settings.maxVisibleToasts}
            onSave={(maxVisibleToasts) => void save({ maxVisibleToasts })}
          />
          <div className="field">
            <label htmlFor="set-soundCommand">Sound command</label>
            <input
              id="set-soundCommand"
              type="text"
              defaultValue={settings.soundCommand ?? ""}
              placeholder="pw-play, paplay or aplay"
              aria-describedby="set-soundCommand-help"
              onBlur={(event) => {
                const value = event.target.value.trim();
                if (value !== (settings.soundCommand ?? "")) void save({ soundCommand: value === "" ? null : value });
              }}
            />
            <p id="set-soundCommand-help" className="help">
              Run with the sound file's path as its last argument. Empty: the first of pw-play, paplay or aplay found on
              PATH.
            </p>
          </div>
        </form>
      )}
      <SoundsEditor typesRound={typesRound} />
      <TypesEditor onSaved={() => setTypesRound((round) => round + 1)} />
    </section>
  );
}

function NumberField(props: {
  id: string;
  label: string;
  help: string;
  min: number;
  max: number;
  value: number;
  onSave: (value: number) => void;
}) {
  const [text, setText] = useState(String(props.value));
  useEffect(() => setText(String(props.value)), [props.value]);
  const commit = () => {
    const value = Number(text);
    if (Number.isInteger(value) && value >= props.min && value <= props.max && value !== props.value)
      props.onSave(value);
    else setText(String(props.value));
  };
  return (
    <div className="field">
      <label htmlFor={`set-${props.id}`}>{props.label}</label>
      <input
        id={`set-${props.id}`}
        type="number"
        inputMode="numeric"
        min={props.min}
        max={props.max}
        value={text}
        aria-describedby={`set-${props.id}-help`}
        onChange={(event) => setText(event.target.value)}
        onBlur={commit}
        onKeyDown={(event) => event.key === "Enter" && commit()}
      />
      <p id={`set-${props.id}-help`} className="help">
        {props.help}
      </p>
    </div>
  );
}
