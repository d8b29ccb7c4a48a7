#!/usr/bin/env node
// The relay's CLI as a Node script, for `node bin/notify-relay.js ...` on a Node of one's choosing (the suites start
// it with their own Node). The `notify-relay` command is bin/notify-relay, which picks the Node to run it on.
// Committed, like bin/notify-relay, so it exists on a fresh install before `tsc -b` has built dist/.
import "../dist/cli/main.js";
