import type { RouterServices } from "@notify/router";
import type { FastifyInstance } from "fastify";

/** The provider router package, loaded on first use (`loadRouterModule`). */
export type RouterModule = typeof import("@notify/router");

let loadedModule: RouterModule | undefined;

/** Imports @notify/router (about 90 modules) the first time it is needed; later calls return the same module. */
export async function loadRouterModule(): Promise<RouterModule> {
  loadedModule ??= await import("@notify/router");
  return loadedModule;
}

/**
 * The router package once loaded, synchronously: for code that runs only after `LazyRouter.mount()` (the
 * /ui/api/router routes sit behind a hook that awaits it). Throws when nothing has loaded it yet.
 */
export function routerModule(): RouterModule {
  if (!loadedModule) throw new Error("the provider router is used before it was loaded");
  return loadedModule;
}

/** The router built and mounted: its services and the fastify instance that answers /router/v1. */
export interface MountedRouter {
  services: RouterServices;
  app: FastifyInstance;
}

/**
 * The provider router of a broker, built on first use rather than at start (issue 22, part 6): when the router is
 * switched on, on the first request to /router/v1 and on the first /ui/api/router request. A broker whose router
 * stays off never loads the package, opens its tables or starts its ledger prune.
 */
export class LazyRouter {
  private mounting: Promise<MountedRouter> | undefined;
  private current: MountedRouter | undefined;

  constructor(private readonly build: () => Promise<MountedRouter>) {}

  /** The router when it is built, else undefined (nothing is loaded by asking). */
  get mounted(): MountedRouter | undefined {
    return this.current;
  }

  /** Builds the router once; concurrent callers share the build. A failed build is tried again next time. */
  mount(): Promise<MountedRouter> {
    this.mounting ??= this.build().then(
      (mounted) => {
        this.current = mounted;
        return mounted;
      },
      (error: unknown) => {
        this.mounting = undefined;
        throw error;
      },
    );
    return this.mounting;
  }

  /** The built router's services; only where `mount()` has been awaited before. */
  services(): RouterServices {
    if (!this.current) throw new Error("the provider router is used before it was built");
    return this.current.services;
  }

  /** Closes the router if it was built or is being built (ledger written, upstream connections closed). */
  async close(): Promise<void> {
    const mounted = await this.mounting?.catch(() => undefined);
    await mounted?.app.close();
  }
}
