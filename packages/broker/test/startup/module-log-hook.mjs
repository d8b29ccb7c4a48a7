// Loaded with `node --import` (through NODE_OPTIONS): appends the URL of every module the process loads to the
// file named by NOTIFY_TEST_MODULE_LOG, one per line.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.NOTIFY_TEST_MODULE_LOG;
if (file) {
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(file, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
