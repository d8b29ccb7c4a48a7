/**
 * docs/desktop.md, "Local presentation rules", rule 6: the built-in tones. Synthesized here, so the package ships no
 * audio files.
 */
export const BUILT_IN_TONES = ["chime", "ping", "alert", "knock"] as const;
export type BuiltInTone = (typeof BUILT_IN_TONES)[number];

export const SAMPLE_RATE = 44_100;

export function isBuiltInTone(name: string): name is BuiltInTone {
  return (BUILT_IN_TONES as readonly string[]).includes(name);
}

/** A note: frequency (Hz), start and length (s), decay rate (1/s), and a square-ish edge for `alert`. */
interface Note {
  hz: number;
  at: number;
  length: number;
  decay: number;
  edge?: boolean;
}

const SCORES: Record<BuiltInTone, Note[]> = {
  // Two bell-like notes a major third apart: the everyday "something happened".
  chime: [
    { hz: 1318.5, at: 0, length: 0.45, decay: 6 },
    { hz: 1046.5, at: 0.16, length: 0.5, decay: 6 },
  ],
  // One short high note: a question is waiting.
  ping: [{ hz: 1760, at: 0, length: 0.25, decay: 14 }],
  // Three hard pulses: something failed.
  alert: [
    { hz: 880, at: 0, length: 0.12, decay: 4, edge: true },
    { hz: 880, at: 0.17, length: 0.12, decay: 4, edge: true },
    { hz: 880, at: 0.34, length: 0.12, decay: 4, edge: true },
  ],
  // Two low thumps: blocked, someone should look.
  knock: [
    { hz: 160, at: 0, length: 0.12, decay: 30 },
    { hz: 160, at: 0.18, length: 0.12, decay: 30 },
  ],
};

/** 16-bit mono PCM samples of a tone at a volume of 0-100. */
export function toneSamples(tone: BuiltInTone, volume: number): Int16Array {
  const notes = SCORES[tone];
  const seconds = Math.max(...notes.map((note) => note.at + note.length));
  const samples = new Float64Array(Math.ceil(seconds * SAMPLE_RATE));
  for (const note of notes) {
    const start = Math.round(note.at * SAMPLE_RATE);
    const count = Math.round(note.length * SAMPLE_RATE);
    for (let index = 0; index < count && start + index < samples.length; index++) {
      const time = index / SAMPLE_RATE;
      const phase = 2 * Math.PI * note.hz * time;
      let wave = Math.sin(phase);
      if (note.edge) wave = Math.tanh(4 * wave);
      // A 5 ms attack avoids a click; the exponential decay makes it a struck sound rather than a beep.
      const attack = Math.min(1, time / 0.005);
      const release = Math.min(1, (count - index) / (0.01 * SAMPLE_RATE));
      samples[start + index] = (samples[start + index] ?? 0) + wave * attack * release * Math.exp(-note.decay * time);
    }
  }
  const gain = 0.6 * (Math.max(0, Math.min(100, volume)) / 100) * 32767;
  const out = new Int16Array(samples.length);
  for (let index = 0; index < samples.length; index++) {
    out[index] = Math.max(-32768, Math.min(32767, Math.round((samples[index] ?? 0) * gain)));
  }
  return out;
}

/** A canonical 44-byte-header WAV file (RIFF, PCM format 1) of mono 16-bit samples. */
export function wavFile(samples: Int16Array, sampleRate = SAMPLE_RATE): Buffer {
  const data = samples.length * 2;
  const file = Buffer.alloc(44 + data);
  file.write("RIFF", 0, "ascii");
  file.writeUInt32LE(36 + data, 4);
  file.write("WAVE", 8, "ascii");
  file.write("fmt ", 12, "ascii");
  file.writeUInt32LE(16, 16);
  file.writeUInt16LE(1, 20); // PCM
  file.writeUInt16LE(1, 22); // mono
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * 2, 28);
  file.writeUInt16LE(2, 32);
  file.writeUInt16LE(16, 34);
  file.write("data", 36, "ascii");
  file.writeUInt32LE(data, 40);
  for (let index = 0; index < samples.length; index++) file.writeInt16LE(samples[index] ?? 0, 44 + index * 2);
  return file;
}
