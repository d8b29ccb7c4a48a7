import type { SessionInfo } from "@notify/contracts/ui";
import { useEffect, useState } from "react";
import { ApiError, api, onUnauthorized } from "./api/client.js";
import { InboxPage } from "./inbox/inbox-page.js";
import { ItemDetail } from "./inbox/item-detail.js";
import { Link, usePath } from "./navigation.js";
import { OutboundPage } from "./outbound/outbound-page.js";
import { startPresenceReporter } from "./presence-reporter.js";
import { RelayPage } from "./relay/relay-page.js";
import { RouterPage } from "./router/router-page.js";
import { SettingsPage } from "./settings/settings-page.js";

const PAGES = [
  { path: "/ui", label: "Inbox" },
  { path: "/ui/settings", label: "Settings" },
  { path: "/ui/outbound", label: "Outbound" },
  { path: "/ui/router", label: "Router" },
  { path: "/ui/relay", label: "Relay" },
];

type Session =
  | { state: "checking" }
  | { state: "in"; info: SessionInfo }
  | { state: "out"; command?: string }
  | { state: "down" };

/** The command a 401 of /ui/api/session names (`notify open` or `npx notify open`). */
function openCommandOf(error: unknown): string | undefined {
  return error instanceof ApiError ? error.openCommand : undefined;
}

export function App() {
  const [session, setSession] = useState<Session>({ state: "checking" });
  const path = usePath();

  useEffect(() => {
    api.session().then(
      (info) => setSession({ state: "in", info }),
      (error: unknown) =>
        setSession(
          error instanceof ApiError && error.status === 401
            ? { state: "out", ...(openCommandOf(error) ? { command: openCommandOf(error) as string } : {}) }
            : { state: "down" },
        ),
    );
    return onUnauthorized(() => setSession({ state: "out" }));
  }, []);

  // Presence (docs/routing.md): a signed-in page that is visible and used says the person is here.
  useEffect(() => (session.state === "in" ? startPresenceReporter() : undefined), [session.state]);

  useEffect(() => {
    const page = PAGES.find((entry) => entry.path !== "/ui" && isCurrent(path, entry.path));
    document.title = page ? `${page.label} · Notify` : "Notify";
  }, [path]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <span className="brand" aria-hidden="true">
          Notify
        </span>
        {session.state === "in" && (
          <nav aria-label="Pages">
            <ul>
              {PAGES.map((page) => (
                <li key={page.path}>
                  <Link href={page.path} aria-current={isCurrent(path, page.path) ? "page" : undefined}>
                    {page.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {session.state === "in" && session.info.via === "session" && (
          <button
            type="button"
            className="sign-out"
            onClick={() => void api.signOut().finally(() => setSession({ state: "out" }))}
          >
            Sign out
          </button>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {session.state === "checking" && <p className="muted">Loading…</p>}
        {session.state === "out" && <SignIn command={session.command ?? "notify open"} />}
        {session.state === "down" && (
          <section className="notice">
            <h1>The broker is not answering</h1>
            <p>
              Start it with <code>npm start</code> (or <code>notify serve</code>), then reload this page.
            </p>
          </section>
        )}
        {session.state === "in" && <Page path={path} />}
      </main>
    </>
  );
}

function isCurrent(path: string, page: string): boolean {
  if (page === "/ui") return path === "/ui" || path.startsWith("/ui/notifications") || path.startsWith("/ui/questions");
  return path === page || path.startsWith(`${page}/`);
}

function Page({ path }: { path: string }) {
  const detail = /^\/ui\/(notifications|questions)\/([^/]+)$/.exec(path);
  if (detail?.[1] && detail[2]) {
    return (
      <ItemDetail
        kind={detail[1] === "notifications" ? "notification" : "interaction"}
        id={decodeURIComponent(detail[2])}
      />
    );
  }
  if (path === "/ui/settings") return <SettingsPage />;
  if (path === "/ui/outbound") return <OutboundPage />;
  if (path === "/ui/router" || path.startsWith("/ui/router/")) return <RouterPage path={path} />;
  if (path === "/ui/relay") return <RelayPage />;
  if (path === "/ui") return <InboxPage />;
  return (
    <section className="notice">
      <h1>Page not found</h1>
      <p>
        <Link href="/ui">Back to the inbox</Link>
      </p>
    </section>
  );
}

function SignIn({ command }: { command: string }) {
  return (
    <section className="notice">
      <h1>Sign in to Notify</h1>
      <p>This page needs a login link from the broker. Each link works once.</p>
      <ul>
        <li>
          Use the <strong>Web UI</strong> link that <code>npm start</code> printed, or
        </li>
        <li>
          run <code>{command}</code> (or <code>{command} --print</code>) for a new one.
        </li>
      </ul>
    </section>
  );
}
