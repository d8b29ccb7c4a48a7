// Loaded with `node --import` (through NODE_OPTIONS): appends the URL of every module the process loads to the
// file named by NOTIFY_TEST_MODULE_LOG, one per line, and at exit Node's own internal modules (`builtin:` and an
// entry of process.moduleLoadList: the bundled undici, say, which no load hook sees).
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.NOTIFY_TEST_MODULE_LOG;
if (file) {
  process.on("exit", () => {
    appendFileSync(file, process.moduleLoadList.map((entry) => `builtin:${entry}\n`).join(""));
  });
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(file, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
