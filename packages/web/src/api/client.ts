import type { ItemContext } from "@notify/contracts/item-context";
import type { SessionDto } from "@notify/contracts/sessions";
import type {
  DeliveryResult,
  ErrorBody,
  ImportedSound,
  InboxSnapshot,
  ItemTimeline,
  NotificationStatusBody,
  OutboundKind,
  OutboundProvider,
  OutboundProviderInput,
  OutboundRoute,
  OutboundRouteInput,
  Outbox,
  OutboxItem,
  PresentationPatch,
  PresentationSettings,
  RelayDeviceList,
  RelayEnrollBody,
  RelayPairing,
  RouterRequest,
  RouterRoute,
  RouterSettingsInput,
  RouterStatus,
  RouterUpstream,
  RouteTestResult,
  SessionInfo,
  SoundsListing,
  TypeDefinition,
  TypeSoundsPatch,
  UiInteraction,
  UiNotification,
  UiRespondBody,
  UnfetchedRoutes,
} from "@notify/contracts/ui";
import type { ItemKind } from "@notify/contracts/ui-constants";

/** A refused /ui/api call: the status, the broker's `{error}` text and the option it concerns (`field`). */
export class ApiError extends Error {
  /** The option the refusal concerns (`quiet_hours.end`), when the broker names one. */
  readonly field: string | undefined;
  constructor(
    readonly status: number,
    message: string,
    /** The error body as sent. */
    readonly body?: unknown,
    /** A 401 from /ui/api/session names the command that prints a login link (`X-Notify-Open-Command`). */
    readonly openCommand?: string,
  ) {
    super(message);
    this.name = "ApiError";
    const field = (body as Partial<ErrorBody> | undefined)?.field;
    this.field = typeof field === "string" ? field : undefined;
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when any call gets a 401: the session is gone and the page shows how to sign in again. */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * The one place the page talks to the broker: same-origin cookie, `X-Notify-UI: 1` on every change. A Blob body
 * (a sound file) goes as its raw bytes; anything else as JSON. `keepalive` lets a small request outlive the page
 * that sends it (a report sent while the page unloads).
 */
export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  options: { keepalive?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") headers["x-notify-ui"] = "1";
  const raw = body instanceof Blob;
  if (body !== undefined) headers["content-type"] = raw ? "application/octet-stream" : "application/json";
  const response = await fetch(`/ui/api${path}`, {
    method,
    headers,
    credentials: "same-origin",
    ...(options.keepalive ? { keepalive: true } : {}),
    ...(body !== undefined ? { body: raw ? body : JSON.stringify(body) } : {}),
  });
  if (response.status === 204) return undefined as T;
  const data = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok) {
    if (response.status === 401) for (const listener of unauthorizedListeners) listener();
    const message = (data as Partial<ErrorBody> | undefined)?.error;
    throw new ApiError(
      response.status,
      typeof message === "string" ? message : response.statusText,
      data,
      response.headers.get("x-notify-open-command") ?? undefined,
    );
  }
  return data as T;
}

const id = (value: string) => encodeURIComponent(value);

export const api = {
  session: () => call<SessionInfo>("GET", "/session"),
  signOut: () => call<void>("DELETE", "/session"),

  sessions: () => call<{ sessions: SessionDto[] }>("GET", "/sessions"),
  inbox: (limit?: number) => call<InboxSnapshot>("GET", `/inbox${limit ? `?limit=${limit}` : ""}`),
  notification: (notificationId: string) => call<UiNotification>("GET", `/notifications/${id(notificationId)}`),
  setStatus: (notificationId: string, body: NotificationStatusBody) =>
    call<UiNotification>("PATCH", `/notifications/${id(notificationId)}`, body),
  interaction: (interactionId: string) => call<UiInteraction>("GET", `/interactions/${id(interactionId)}`),
  respond: (interactionId: string, body: UiRespondBody) =>
    call<UiInteraction>("POST", `/interactions/${id(interactionId)}/respond`, body),
  /** What a question carries besides its prompt (docs/api.md, "Item context"); 404 when nothing. */
  context: (itemId: string) => call<ItemContext>("GET", `/items/${id(itemId)}/context`),
  /** The delivery timeline of an item (either half of a question gives the same). */
  timeline: (kind: ItemKind, itemId: string) =>
    call<ItemTimeline>("GET", `/${kind === "notification" ? "notifications" : "interactions"}/${id(itemId)}/timeline`),

  presentation: () => call<PresentationSettings>("GET", "/presentation"),
  savePresentation: (patch: PresentationPatch) => call<PresentationSettings>("PUT", "/presentation", patch),
  types: () => call<TypeDefinition[]>("GET", "/types"),
  saveTypes: (types: TypeDefinition[]) => call<TypeDefinition[]>("PUT", "/types", types),

  sounds: {
    list: () => call<SoundsListing>("GET", "/sounds"),
    /** Imports a .wav or .mp3 file under its own name (the broker checks the bytes). */
    import: (file: File) => call<ImportedSound>("PUT", `/sounds/files/${id(file.name)}`, file),
    remove: (name: string) => call<void>("DELETE", `/sounds/files/${id(name)}`),
    setTypes: (patch: TypeSoundsPatch) => call<SoundsListing>("PUT", "/sounds/types", patch),
  },

  outbound: {
    kinds: () => call<OutboundKind[]>("GET", "/outbound/kinds"),
    providers: () => call<OutboundProvider[]>("GET", "/outbound/providers"),
    saveProvider: (body: OutboundProviderInput, providerId?: string) =>
      providerId
        ? call<OutboundProvider>("PATCH", `/outbound/providers/${id(providerId)}`, body)
        : call<OutboundProvider>("POST", "/outbound/providers", body),
    deleteProvider: (providerId: string) => call<void>("DELETE", `/outbound/providers/${id(providerId)}`),
    test: (providerId: string) => call<DeliveryResult>("POST", `/outbound/providers/${id(providerId)}/test`),
    testRoute: (routeId: string) => call<{ routes: RouteTestResult[] }>("POST", "/outbound/test", { route: routeId }),
    routes: () => call<OutboundRoute[]>("GET", "/outbound/routes"),
    saveRoute: (body: OutboundRouteInput, routeId?: string) =>
      routeId
        ? call<OutboundRoute>("PATCH", `/outbound/routes/${id(routeId)}`, body)
        : call<OutboundRoute>("POST", "/outbound/routes", body),
    deleteRoute: (routeId: string) => call<void>("DELETE", `/outbound/routes/${id(routeId)}`),
    outbox: (status?: string) => call<Outbox>("GET", `/outbound/outbox${status ? `?status=${id(status)}` : ""}`),
    retry: (itemId: string) => call<OutboxItem>("POST", `/outbound/outbox/${id(itemId)}/retry`),
  },

  relay: {
    enroll: (body: RelayEnrollBody) => call<OutboundProvider>("POST", "/relay/enroll", body),
    pair: () => call<RelayPairing>("POST", "/relay/pairings"),
    devices: () => call<RelayDeviceList>("GET", "/relay/devices"),
    revoke: (deviceId: string) => call<void>("DELETE", `/relay/devices/${id(deviceId)}`),
    /** Relay routes whose deliveries no phone fetched in time (receipts; the Outbound page flags them). */
    unfetched: () => call<UnfetchedRoutes>("GET", "/relay/unfetched"),
  },

  router: {
    status: () => call<RouterStatus>("GET", "/router/status"),
    saveSettings: (body: RouterSettingsInput) => call<RouterStatus>("PUT", "/router/settings", body),
    upstreams: () => call<RouterUpstream[]>("GET", "/router/upstreams"),
    saveUpstream: (body: Record<string, unknown>, upstreamId?: string) =>
      upstreamId
        ? call<RouterUpstream>("PATCH", `/router/upstreams/${id(upstreamId)}`, body)
        : call<RouterUpstream>("POST", "/router/upstreams", body),
    deleteUpstream: (upstreamId: string) => call<void>("DELETE", `/router/upstreams/${id(upstreamId)}`),
    routes: () => call<RouterRoute[]>("GET", "/router/routes"),
    saveRoute: (body: Record<string, unknown>, routeId?: string) =>
      routeId
        ? call<RouterRoute>("PATCH", `/router/routes/${id(routeId)}`, body)
        : call<RouterRoute>("POST", "/router/routes", body),
    deleteRoute: (routeId: string) => call<void>("DELETE", `/router/routes/${id(routeId)}`),
    activity: (limit = 50) => call<RouterRequest[]>("GET", `/router/activity?limit=${limit}`),
  },
};
