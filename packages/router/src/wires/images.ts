import type { ImagePart } from "../ir.js";

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** A URL image, or a base64 one when the URL is a `data:` URL (the chat and responses wires inline images so). */
export function imageFromUrl(url: string): ImagePart {
  const match = DATA_URL.exec(url);
  if (match?.[1] !== undefined && match[2] !== undefined) {
    return { type: "image", source: "base64", mediaType: match[1], base64: match[2] };
  }
  return { type: "image", source: "url", url };
}

export function imageToUrl(image: ImagePart): string {
  return image.source === "url" ? image.url : `data:${image.mediaType};base64,${image.base64}`;
}
