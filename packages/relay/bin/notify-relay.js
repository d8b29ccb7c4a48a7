#!/usr/bin/env node
// The `notify-relay` command. A committed shim, so npm links the bin on a fresh install even before `tsc -b` has
// built dist/ (npm links bins before the root `prepare` script runs).
import "../dist/cli/main.js";
