import type {
  EffortModelOverrideInput,
  EffortOverrideSet,
  EffortView,
  RouterRoute,
  RouterRouteInput,
  RouterRoutePatch,
} from "@notify/contracts/ui";
import { call } from "../api/client.js";

const id = (value: string) => encodeURIComponent(value);

/** The Routing and Effort mapping pages' calls to /ui/api/router (beside `api.router` in api/client.ts). */
export const routerApi = {
  createRoute: (body: RouterRouteInput) => call<RouterRoute>("POST", "/router/routes", body),
  patchRoute: (routeId: string, body: RouterRoutePatch) =>
    call<RouterRoute>("PATCH", `/router/routes/${id(routeId)}`, body),
  effort: () => call<EffortView>("GET", "/router/effort"),
  saveFamily: (familyId: string, set: EffortOverrideSet) =>
    call<EffortView>("PUT", `/router/effort/families/${id(familyId)}`, set),
  resetFamily: (familyId: string) => call<void>("DELETE", `/router/effort/families/${id(familyId)}`),
  saveModel: (body: EffortModelOverrideInput) => call<EffortView>("PUT", "/router/effort/models", body),
  removeModel: (model: string) => call<void>("DELETE", `/router/effort/models?model=${id(model)}`),
};
