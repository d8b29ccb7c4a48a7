// Root `preinstall`: when npm itself runs on a Node older than Notify needs (a system Node 20, say), it prints one
// EBADENGINE warning per package that declares a newer engine. Those warnings are expected here: the repository
// pins Node 24 as the devDependency `node`, and npm start, npm test and npx notify run on it. This says so once,
// right under the warnings, without hiding any other warning or error (README, "Install").
const MINIMUM = [22, 13];

/** The Node that npm runs on: npm's user agent names it (`npm/11.19.1 node/v20.20.2 linux x64 ...`). */
function npmNode(env = process.env) {
  const match = /\bnode\/v(\d+)\.(\d+)\.(\d+)/.exec(env.npm_config_user_agent ?? "");
  return match
    ? { major: Number(match[1]), minor: Number(match[2]), text: `${match[1]}.${match[2]}.${match[3]}` }
    : undefined;
}

const node = npmNode();
const older = node !== undefined && (node.major < MINIMUM[0] || (node.major === MINIMUM[0] && node.minor < MINIMUM[1]));
if (older) {
  process.stderr.write(
    `\nnotify: npm runs on Node ${node.text} here, so the "EBADENGINE Unsupported engine" warnings above are expected:\n` +
      `notify:   Notify's packages need Node >= ${MINIMUM.join(".")}, and this repository pins Node 24 as the devDependency\n` +
      `notify:   "node", which npm start, npm test and npx notify run on. The install goes on; a real failure stops it\n` +
      `notify:   with "npm error". (README.md, "Install")\n\n`,
  );
}
