import type { ItemContext } from "@notify/contracts/item-context";
import type { PresentationSettingsFile } from "../config/presentation-settings.js";
import type { DomainBus } from "../domain/bus.js";
import type { Clock } from "../domain/clock.js";
import type { InteractionService } from "../interactions/service.js";
import type { Logger } from "../log/logger.js";
import type { NotificationService } from "../notifications/service.js";
import { openLoginLink, withoutSecrets } from "./browser-opener.js";
import { FreedesktopNotifier } from "./freedesktop/freedesktop-notifier.js";
import { Presenter, type ToastLog } from "./presenter.js";
import type { SoundLibrary } from "./sounds/sound-library.js";
import { SoundPlayer } from "./sounds/sound-player.js";

export interface DesktopOptions {
  /** DBUS_SESSION_BUS_ADDRESS. */
  address: string;
  /** Test hooks: reconnect backoff and call timeout (docs/desktop.md). */
  retryMinMs?: number;
  retryMaxMs?: number;
  callTimeoutMs?: number;
  /** The environment sounds are played with (PATH finds the default player). */
  env?: NodeJS.ProcessEnv;
}

export interface DesktopServices {
  bus: DomainBus;
  notifications: NotificationService;
  interactions: InteractionService;
  settings: PresentationSettingsFile;
  sounds: SoundLibrary;
  logger: Logger;
  clock: Clock;
  /** A one-time login link to the web UI that lands on `next` (a /ui path), once the broker listens. */
  loginLink: (next: string) => string | undefined;
  /** The data dir: the toast's Open action hands the link to the browser through a private page there. */
  dataDir: string;
  /** Where shown and closed toasts are noted for the item's delivery timeline. */
  toastLog?: ToastLog;
  /**
   * The context a question carries (by the question's id or its notification half's), read once per toast event:
   * the toast's one-line summary (`src/db.ts +12 -4`), and for an MCP form (docs/hooks.md, "MCP elicitation") no
   * toast for a field (the decision has the form's one toast) and no Accept on the decision's toast (the fields are
   * not on it, so Accept there would send what the person never saw).
   */
  questionContext?: (id: string) => ItemContext | undefined;
}

/** Starts toasts and sounds on the freedesktop notification service (Linux). */
export function startDesktop(options: DesktopOptions, services: DesktopServices): Presenter {
  const notifier = new FreedesktopNotifier({
    address: options.address,
    logger: services.logger,
    ...(options.retryMinMs !== undefined ? { retryMinMs: options.retryMinMs } : {}),
    ...(options.retryMaxMs !== undefined ? { retryMaxMs: options.retryMaxMs } : {}),
    ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
  });
  const presenter = new Presenter({
    bus: services.bus,
    notifications: services.notifications,
    interactions: services.interactions,
    settings: services.settings,
    notifier,
    sounds: services.sounds,
    player: new SoundPlayer(services.sounds, services.logger, withoutSecrets(options.env ?? process.env)),
    logger: services.logger,
    clock: services.clock,
    ...(services.toastLog ? { log: services.toastLog } : {}),
    ...(services.questionContext ? { questionContext: services.questionContext } : {}),
    open: (_kind, id) => {
      const link = services.loginLink(`/ui/#${id}`);
      if (link === undefined) return;
      // Never the link itself on a command line (issue 21, item 1): openLoginLink passes a 0600 page's path.
      openLoginLink(link, { dataDir: services.dataDir, ...(options.env ? { env: options.env } : {}) }).then(
        (outcome) => {
          if (!outcome.opened) services.logger.warn(`desktop: could not open the web UI: ${outcome.problem}`);
        },
        (error: Error) => services.logger.warn(`desktop: could not open the web UI: ${error.message}`),
      );
    },
  });
  presenter.start();
  services.sounds.onTypeSoundsChange(() => presenter.typeSoundsChanged());
  return presenter;
}
