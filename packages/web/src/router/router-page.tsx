import { Link } from "../navigation.js";
import "./router.css";
import { ROUTER_PAGES } from "./router-pages.js";

const BASE = "/ui/router";

/** The sub-page a path names: /ui/router is the first one; an unknown segment is none. */
function subPageOf(path: string) {
  if (path === BASE) return ROUTER_PAGES[0];
  const slug = path.slice(BASE.length + 1);
  return ROUTER_PAGES.find((page) => page.slug === slug);
}

/** The Router area: its title, the sub-navigation (ROUTER_PAGES) and the sub-page the path names. */
export function RouterPage({ path }: { path: string }) {
  const current = subPageOf(path);
  return (
    <section aria-labelledby="router-title">
      <h1 id="router-title">Router</h1>
      <nav aria-label="Router pages" className="sub-nav">
        <ul>
          {ROUTER_PAGES.map((page) => (
            <li key={page.slug}>
              <Link href={`${BASE}/${page.slug}`} aria-current={page === current ? "page" : undefined}>
                {page.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {current ? (
        <current.Page key={current.slug} />
      ) : (
        <div className="notice">
          <h2>Page not found</h2>
          <p>
            <Link href={BASE}>Back to the router</Link>
          </p>
        </div>
      )}
    </section>
  );
}
