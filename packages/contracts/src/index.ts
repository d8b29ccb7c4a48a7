export { DIGEST_PATTERN, type DigestChoice, type DigestInput, digestDocument, requestDigest } from "./digest.js";
