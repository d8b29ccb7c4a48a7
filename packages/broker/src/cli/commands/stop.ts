import { unlinkSync } from "node:fs";
import { delay } from "@notify/contracts/retry";
import type { ClientOptions } from "../../client/client.js";
import { ExitError } from "../exit-error.js";
import { absoluteDataDir, answeringBroker, backgroundFiles, isBackgroundBroker, readPidFile, waitMs } from "./start.js";

export interface StopOptions extends ClientOptions {
  wait?: string;
}

/**
 * `notify stop`: SIGTERM to the broker the pid file names (it closes its database and exits), a wait for it to be
 * gone, and the pid file removed. A broker it did not start (a foreground `notify serve`, the service) is left alone.
 */
export async function stop(options: StopOptions): Promise<void> {
  const deadlineMs = waitMs(options.wait);
  const dataDir = absoluteDataDir(options.dataDir);
  const { pidFile } = backgroundFiles(dataDir);
  const pid = readPidFile(pidFile);
  if (pid === undefined) {
    const other = await answeringBroker(options, dataDir);
    throw new ExitError(
      1,
      other === undefined
        ? `no broker started by \`notify start\` is running (no ${pidFile})`
        : `the broker at ${other} was not started by \`notify start\` (no ${pidFile}): stop it where it runs ` +
            "(Ctrl-C in its terminal, or `notify service uninstall` for the service)",
    );
  }
  if (!isBackgroundBroker(pid)) {
    unlinkSync(pidFile);
    process.stderr.write(`notify: the broker (pid ${pid}) was not running; removed ${pidFile}\n`);
    return;
  }
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + deadlineMs;
  while (isBackgroundBroker(pid)) {
    if (Date.now() > deadline) {
      throw new ExitError(
        1,
        `the broker (pid ${pid}) did not stop within ${deadlineMs / 1000} s; \`notify logs\` shows what it ` +
          `is doing (\`kill -KILL ${pid}\` ends it without closing its database)`,
      );
    }
    await delay(50);
  }
  if (readPidFile(pidFile) === pid) unlinkSync(pidFile);
  process.stderr.write(`notify: stopped the broker (pid ${pid})\n`);
}
