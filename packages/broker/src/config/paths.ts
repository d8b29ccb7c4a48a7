import envPaths from "env-paths";

/** `--data-dir`, then `NOTIFY_DATA_DIR`, then the OS per-user data dir (e.g. ~/.local/share/notify). */
export function resolveDataDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit && explicit.length > 0) return explicit;
  const fromEnv = env.NOTIFY_DATA_DIR;
  if (fromEnv && fromEnv.length > 0) return fromEnv;
  return envPaths("notify", { suffix: "" }).data;
}
