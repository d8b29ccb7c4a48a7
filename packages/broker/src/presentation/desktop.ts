import { spawn } from "node:child_process";
import type { PresentationSettingsFile } from "../config/presentation-settings.js";
import type { DomainBus } from "../domain/bus.js";
import type { Clock } from "../domain/clock.js";
import type { InteractionService } from "../interactions/service.js";
import type { Logger } from "../log/logger.js";
import type { NotificationService } from "../notifications/service.js";
import { FreedesktopNotifier } from "./freedesktop/freedesktop-notifier.js";
import { Presenter } from "./presenter.js";
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
    player: new SoundPlayer(services.sounds, services.logger, options.env),
    logger: services.logger,
    clock: services.clock,
    open: (_kind, id) => {
      const link = services.loginLink(`/ui/#${id}`);
      if (link === undefined) return;
      const child = spawn("xdg-open", [link], { stdio: "ignore", detached: true });
      child.once("error", () => services.logger.warn("desktop: xdg-open is not available to open the web UI"));
      child.unref();
    },
  });
  presenter.start();
  services.sounds.onTypeSoundsChange(() => presenter.typeSoundsChanged());
  return presenter;
}
