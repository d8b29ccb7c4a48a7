#!/usr/bin/env node
// The CLI as a Node script, for `node bin/notify.js ...` on a Node of one's choosing (the suites start it with their
// own Node). The `notify` command is bin/notify, which picks the Node to run it on. Committed, like bin/notify, so it
// exists on a fresh install before `tsc -b` has built dist/.
import "../dist/cli/main.js";
