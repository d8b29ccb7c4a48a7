import { createRequire } from "node:module";
import type { FastifyReply } from "fastify";
import { sendError } from "./errors.js";

/**
 * Fastify builds its JSON-schema compilers (ajv with its formats, fast-json-stringify's, about 100 modules) when it
 * starts, though no route of the broker declares a schema (bodies are checked with zod): these factories load them
 * the first time a schema is compiled, which today is never. Both fastify instances (the broker's, the router's
 * behind /router/v1) take them.
 */
const requireFromFastify = createRequire(createRequire(import.meta.url).resolve("fastify"));
type CompilerFactory = (...args: unknown[]) => unknown;
export const lazyCompilers = {
  buildValidator: (...args: unknown[]) =>
    (requireFromFastify("@fastify/ajv-compiler") as () => CompilerFactory)()(...args),
  buildSerializer: (...args: unknown[]) =>
    (requireFromFastify("@fastify/fast-json-stringify-compiler") as () => CompilerFactory)()(...args),
};

/** Answers for requests the framework cannot route (a percent-encoding that is not UTF-8, an over-long parameter). */
export function frameworkErrors(error: { code: string }, _request: unknown, reply: unknown): void {
  sendError(reply as FastifyReply, error.code === "FST_ERR_BAD_URL" ? "bad_url" : "bad_request");
}
