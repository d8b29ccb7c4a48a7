import type { FastifyPluginAsync } from "fastify";
import { DomainError, invalid } from "../../domain/errors.js";
import { MAX_SOUND_BYTES, type SoundLibrary, SoundTooLarge } from "../../presentation/sounds/sound-library.js";
import { BUILT_IN_TONES } from "../../presentation/sounds/tones.js";
import { DEFAULT_TYPE_SOUNDS } from "../../presentation/toast.js";
import { sendError } from "../errors.js";

export interface UiSoundsOptions {
  sounds: SoundLibrary;
}

/** The path prefix whose bodies are sound files (app.ts lets them past the JSON body limit). */
export const SOUND_UPLOAD_PREFIX = "/ui/api/sounds/files/";

/**
 * /ui/api/sounds (docs/api.md, docs/desktop.md): the sounds a toast can play and the per-type choice.
 * GET /sounds; PUT /sounds/files/{file name} with the file's bytes as the body imports one (.wav or .mp3, at most
 * 10 MB, checked by its bytes); DELETE /sounds/files/{name}; PUT /sounds/types `{typeId: sound | "none" | null}`.
 */
export const uiSoundRoutes: FastifyPluginAsync<UiSoundsOptions> = async (app, { sounds }) => {
  const listing = () => ({
    builtIn: [...BUILT_IN_TONES],
    imported: sounds.list(),
    typeSounds: sounds.typeSounds(),
    defaults: DEFAULT_TYPE_SOUNDS,
    maxBytes: MAX_SOUND_BYTES,
  });
  app.get("/sounds", async () => listing());

  app.put("/sounds/types", async (request) => {
    const body = request.body;
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw invalid("body must be an object of type ID to sound name (or null to use the default)");
    }
    sounds.setTypeSounds(body as Record<string, string | null>);
    return listing();
  });

  app.delete<{ Params: { name: string } }>("/sounds/files/:name", async (request, reply) => {
    if (!sounds.remove(request.params.name)) throw new DomainError("sound_not_found");
    return reply.code(204).send();
  });

  // The upload reads raw bytes, up to 10 MB (docs/desktop.md, "Local presentation rules", rule 6), whatever
  // Content-Type the page or curl sends.
  await app.register(async (upload) => {
    upload.removeAllContentTypeParsers();
    upload.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: MAX_SOUND_BYTES }, (_request, body, done) =>
      done(null, body),
    );
    upload.addHook("onRequest", async (request, reply) => {
      if (Number(request.headers["content-length"] ?? 0) > MAX_SOUND_BYTES) {
        return sendError(reply.header("connection", "close"), "sound_too_large");
      }
      return undefined;
    });
    upload.setErrorHandler((error: Error & { code?: string; statusCode?: number }, _request, reply) => {
      if (error instanceof SoundTooLarge || error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
        return sendError(reply.header("connection", "close"), "sound_too_large");
      }
      if (error instanceof DomainError) return sendError(reply, error);
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        return sendError(reply, new DomainError("framework_refused", error.message, { status }));
      }
      return sendError(reply, "internal");
    });
    upload.put<{ Params: { file: string } }>("/sounds/files/:file", async (request, reply) => {
      const bytes = request.body;
      if (!Buffer.isBuffer(bytes) || bytes.length === 0) throw invalid("the body must be the sound file's bytes");
      return reply.code(201).send(sounds.import(request.params.file, bytes));
    });
  });
};
