import { bearerCredential, secretMatches } from "@notify/contracts/guards";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Authenticator } from "../domain/auth.js";
import { RelayError } from "../domain/errors.js";
import type { Device, Installation } from "../store/types.js";
import { clientKey, type LimitName, type Limits } from "./rate-limit.js";

declare module "fastify" {
  interface FastifyRequest {
    installation: Installation | null;
    device: Device | null;
  }
}

export interface Guards {
  authenticator: Authenticator;
  limits: Limits;
  enrollmentToken: string;
}

const limited = (limits: Limits, name: LimitName, key: string): void => {
  const wait = limits.take(name, key);
  if (wait > 0) throw new RelayError("rate_limited", "too many requests", wait);
};

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * onRequest hooks: they run before the body is read, so a bad token gets 401 ahead of 415 and 413
 * (docs/relay.md, "Routes", lists the token as check 1), and a flood of bad tokens costs no body parsing.
 */
export function installationAuth(guards: Guards, limit: LimitName): Hook {
  return async (request) => {
    const installation = await guards.authenticator.installation(bearerCredential(request.headers.authorization));
    if (!installation) throw new RelayError("unauthorized", "the installation token is missing, unknown or revoked");
    limited(guards.limits, limit, installation.id);
    request.installation = installation;
  };
}

export function deviceAuth(guards: Guards, limit: LimitName): Hook {
  return async (request) => {
    const device = await guards.authenticator.device(bearerCredential(request.headers.authorization));
    if (!device) throw new RelayError("unauthorized", "the device token is missing, unknown or revoked");
    limited(guards.limits, limit, device.id);
    request.device = device;
  };
}

export function enrollmentAuth(guards: Guards): Hook {
  return async (request) => {
    limited(guards.limits, "enroll", clientKey(request.ip));
    if (!secretMatches(bearerCredential(request.headers.authorization), guards.enrollmentToken, true)) {
      throw new RelayError("unauthorized", "the enrollment token is missing or wrong");
    }
  };
}

/** Per client address: an IPv4 address, or an IPv6 /64 (one subscriber's usual allocation). */
export function ipLimit(guards: Guards, limit: LimitName): Hook {
  return async (request) => limited(guards.limits, limit, clientKey(request.ip));
}

export function takeLimit(guards: Guards, limit: LimitName, key: string): void {
  limited(guards.limits, limit, key);
}

export function installationOf(request: FastifyRequest): Installation {
  if (!request.installation) throw new RelayError("unauthorized");
  return request.installation;
}

export function deviceOf(request: FastifyRequest): Device {
  if (!request.device) throw new RelayError("unauthorized");
  return request.device;
}
