// Root `preinstall`: when npm itself runs on a Node older than Notify needs (a system Node 20, say), it prints one
// EBADENGINE warning per package that declares a newer engine. Those warnings are expected here: the repository
// pins Node 24 as the devDependency `node`, and npm start, npm test and npx notify run on it. This says so once,
// right under the warnings, without hiding any other warning or error, and names the allowScripts notice npm
// 11.16 and later print at the very end, after this script has run (README, "On an older system Node").
const MINIMUM = [22, 13];

/**
 * What `npm ci` of this checkout prints on npm 11 and Node 20 (README, "On an older system Node"): one block for the
 * root, two for each of the five workspace packages (the link and the package), and one for each of six
 * dependencies (@anthropic-ai/claude-code, canonicalize, cookie, openai, undici, vitest). The test
 * packages/broker/test/install-notice.test.ts counts them in an `npm ci --dry-run` of the checkout's manifests and
 * fails when this is stale.
 */
const NODE_20_BLOCKS = 17;

/** The Node that npm runs on: npm's user agent names it (`npm/11.19.1 node/v20.20.2 linux x64 ...`). */
function npmNode(env = process.env) {
  const match = /\bnode\/v(\d+)\.(\d+)\.(\d+)/.exec(env.npm_config_user_agent ?? "");
  return match
    ? { major: Number(match[1]), minor: Number(match[2]), text: `${match[1]}.${match[2]}.${match[3]}` }
    : undefined;
}

/** The notice for npm on `node` ({major, minor, text}), or "" when that Node is recent enough. */
function notice(node) {
  const older =
    node !== undefined && (node.major < MINIMUM[0] || (node.major === MINIMUM[0] && node.minor < MINIMUM[1]));
  if (!older) return "";
  const count = node.major === 20 ? ` (${NODE_20_BLOCKS} blocks with npm 11 on Node 20)` : "";
  return (
    `\nnotify: npm runs on Node ${node.text} here, so the "EBADENGINE Unsupported engine" warnings above${count} are expected:\n` +
    `notify:   Notify's packages need Node >= ${MINIMUM.join(".")}, and this repository pins Node 24 as the devDependency\n` +
    `notify:   "node", which npm start, npm test and npx notify run on. The install goes on; a real failure stops it\n` +
    `notify:   with "npm error". At the end, npm 11.16 and later list node@24 (its install script fetches that Node)\n` +
    `notify:   and @anthropic-ai/claude-code (the test suites' agent) as "install scripts not yet covered by\n` +
    `notify:   allowScripts": expected too, and both scripts have run. (README.md, "On an older system Node")\n\n`
  );
}

process.stderr.write(notice(npmNode()));
