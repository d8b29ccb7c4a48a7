import type { ComponentType } from "react";
import { ActivityPage } from "./activity-page.js";
import { AgentsSubPage } from "./agents-page.js";
import { EffortPage } from "./effort-page.js";
import { ProvidersPage } from "./providers-page.js";
import { RoutingPage } from "./routing-page.js";

/** One Router sub-page: its path segment under /ui/router, the sub-navigation's label, and the page itself. */
export interface RouterSubPage {
  slug: string;
  label: string;
  Page: ComponentType;
}

/**
 * The Router area's sub-pages, in sub-navigation order (docs/router.md, "Web pages"). The first one also answers
 * /ui/router itself. A new page is one file (`<page>-page.tsx`) and one line here.
 */
export const ROUTER_PAGES: readonly RouterSubPage[] = [
  { slug: "providers", label: "Providers", Page: ProvidersPage },
  { slug: "routing", label: "Routing", Page: RoutingPage },
  { slug: "agents", label: "Agents", Page: AgentsSubPage },
  { slug: "activity", label: "Activity", Page: ActivityPage },
  { slug: "effort", label: "Effort mapping", Page: EffortPage },
];
