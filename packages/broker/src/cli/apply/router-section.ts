import type { ApplySection } from "./section.js";

/**
 * EXTENSION POINT (the provider router issue, spec 3): `router` will carry the router's upstreams, routes and
 * settings. To wire it, replace this stub with a section whose `parse` checks the structure and lists the secret
 * values it carries (upstream API keys), and whose `plan` reads the router's current state and returns the steps
 * (upserts by name, then with --prune the deletions); then describe the section in docs/apply.md.
 *
 * Until then a file with a `router` key is refused in the parse phase, so nothing else in it is applied either:
 * applying half a file and silently dropping the rest would leave the owner believing the router was configured.
 */
export const routerSection: ApplySection = {
  key: "router",
  // The router section will list its upstreams' API keys here.
  secrets: () => [],
  parse(_value, problems) {
    problems.push(
      "router: this section is not supported yet by `notify apply` (router upstreams, routes and settings come " +
        "with the provider router); remove it from the file to apply the rest",
    );
    return undefined;
  },
};
