import { routingSummary } from "@notify/contracts/routing-summary";
import type {
  DeliveryResult,
  OutboundConnection,
  OutboundProvider,
  RouteTestResult,
  UnfetchedRoute,
} from "@notify/contracts/ui";
import { OUTBOX_STATUSES } from "@notify/contracts/ui-constants";
import { Fragment, useEffect, useState } from "react";
import { api } from "../api/client.js";
import { fullTime, shortTime } from "../format.js";
import { HeaderWithActions } from "../table-header.js";
import { actionRunner, messageOf, useLoad } from "../use-load.js";
import { ProviderForm } from "./provider-form.js";
import { RouteForm } from "./route-form.js";
import "./outbound.css";

const STATUS_TEXT = { Pending: "Pending", Retry: "Retrying", Delivered: "Delivered", DeadLetter: "Dead letters" };
const CONNECTION_TEXT = { connecting: "Connecting", connected: "Connected", retrying: "Retrying" };

/** A chat provider's answer loop (Telegram getUpdates, Slack Socket Mode): connected, or retrying and why. */
function ConnectionLine({ connection }: { connection: OutboundConnection }) {
  return (
    <p className="connection-line">
      Answers:{" "}
      <span className={`state ${connection.state === "connected" ? "on" : connection.state}`}>
        {CONNECTION_TEXT[connection.state]}
      </span>
      {connection.lastCode && connection.state !== "connected" && (
        <>
          {" "}
          · last error <code>{connection.lastCode}</code>
        </>
      )}{" "}
      <span className="muted">since {shortTime(connection.since)}</span>
    </p>
  );
}

/**
 * Provider profiles (secrets write-only), routes with their gates and, under each, when it delivers in one line
 * (the same words as `notify outbound list`), and the outbox.
 */
/** How often the page asks again whether a relay route's phones fetch what it sends. */
const UNFETCHED_RECHECK_MS = 15_000;

/**
 * Receipts (docs/relay.md, "Receipts on the broker"): a relay route whose deliveries no phone fetched in time says so
 * under its row, with what to do.
 */
function UnfetchedLine({ route, name, seconds }: { route: UnfetchedRoute; name: string; seconds: number }) {
  const count = route.unfetched === 1 ? "1 delivery" : `${route.unfetched} deliveries`;
  return (
    <p className="route-unfetched" role="alert">
      <strong>Not fetched:</strong> no phone has fetched {count}
      <span className="visually-hidden"> of route {name}</span> after {seconds} s (the oldest was sent at{" "}
      <time dateTime={route.oldest_at} title={fullTime(route.oldest_at)}>
        {shortTime(route.oldest_at)}
      </time>
      ). Open the Notify app on the phone and turn its notifications on.
    </p>
  );
}

export function OutboundPage() {
  const providers = useLoad(api.outbound.providers);
  const routes = useLoad(api.outbound.routes);
  const unfetched = useLoad(api.relay.unfetched);
  const reloadUnfetched = unfetched.reload;
  useEffect(() => {
    const timer = setInterval(reloadUnfetched, UNFETCHED_RECHECK_MS);
    return () => clearInterval(timer);
  }, [reloadUnfetched]);
  const outbox = useLoad(() => api.outbound.outbox("DeadLetter"));
  const kinds = useLoad(api.outbound.kinds);
  const [message, setMessage] = useState("");
  const [results, setResults] = useState<Record<string, DeliveryResult | string>>({});

  const act = actionRunner(setMessage, () => {
    providers.reload();
    routes.reload();
    outbox.reload();
  });
  const test = async (provider: OutboundProvider) => {
    setResults((all) => ({ ...all, [provider.id]: "Sending…" }));
    try {
      const result = await api.outbound.test(provider.id);
      setResults((all) => ({ ...all, [provider.id]: result }));
    } catch (failure) {
      setResults((all) => ({ ...all, [provider.id]: messageOf(failure) }));
    }
  };
  const [routeTests, setRouteTests] = useState<Record<string, RouteTestResult | string>>({});
  // A route's Test (issue 37, item 5): the same hops as `notify test ROUTE`, each with its time and a fix.
  const testRoute = async (routeId: string) => {
    setRouteTests((all) => ({ ...all, [routeId]: "Testing…" }));
    try {
      const {
        routes: [result],
      } = await api.outbound.testRoute(routeId);
      setRouteTests((all) => ({ ...all, [routeId]: result ?? "No result" }));
    } catch (failure) {
      setRouteTests((all) => ({ ...all, [routeId]: messageOf(failure) }));
    }
  };
  const providerName = (id: string) => providers.data?.find((p) => p.id === id)?.name ?? id;

  return (
    <section aria-labelledby="outbound-title">
      <div className="page-head">
        <h1 id="outbound-title">Outbound</h1>
        <p className="muted" role="status">
          {message}
        </p>
      </div>
      <div className="card">
        <h2>Providers</h2>
        {providers.error && <p className="error">{providers.error}</p>}
        {providers.data?.length === 0 && <p className="muted">No providers yet. New ones start disabled.</p>}
        <ul className="plain-list">
          {providers.data?.map((provider) => {
            const result = results[provider.id];
            return (
              <li key={provider.id} className="config-row">
                <div>
                  <strong>{provider.name}</strong> <span className="badge">{provider.kind.replaceAll("_", " ")}</span>{" "}
                  <span className={provider.enabled ? "state on" : "state"}>
                    {provider.enabled ? "Enabled" : "Disabled"}
                  </span>
                  {Object.keys(provider.settings).length > 0 && (
                    <p className="muted settings-summary">
                      {Object.entries(provider.settings)
                        .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
                        .join(" · ")}
                    </p>
                  )}
                  {provider.connection && <ConnectionLine connection={provider.connection} />}
                  <p className="muted">
                    Secrets:{" "}
                    {provider.secretNames.length > 0
                      ? provider.secretNames.map((name) => `${name} set`).join(", ")
                      : "none set"}
                  </p>
                  {result && (
                    <p className={typeof result !== "string" && result.ok ? "ok" : "error"} role="status">
                      Test:{" "}
                      {typeof result === "string"
                        ? result
                        : result.ok
                          ? `delivered${result.status ? ` (${result.status})` : ""}`
                          : `failed: ${result.code}${result.status ? ` (${result.status})` : ""}`}
                    </p>
                  )}
                </div>
                <div className="actions">
                  <button type="button" onClick={() => void test(provider)}>
                    Test <span className="visually-hidden">{provider.name}</span>
                  </button>
                  <button
                    type="button"
                    onClick={() =>
                      void act(() => api.outbound.saveProvider({ enabled: !provider.enabled }, provider.id), "Saved")
                    }
                  >
                    {provider.enabled ? "Disable" : "Enable"} <span className="visually-hidden">{provider.name}</span>
                  </button>
                  <button
                    type="button"
                    onClick={() => void act(() => api.outbound.deleteProvider(provider.id), "Deleted")}
                  >
                    Delete <span className="visually-hidden">{provider.name}</span>
                  </button>
                </div>
                {kinds.data && (
                  <ProviderForm
                    key={provider.updatedAt}
                    kinds={kinds.data}
                    provider={provider}
                    onSaved={(name) => {
                      setMessage(`Saved ${name}`);
                      providers.reload();
                    }}
                  />
                )}
              </li>
            );
          })}
        </ul>
        {kinds.data && (
          <ProviderForm
            kinds={kinds.data}
            onSaved={(name) => {
              setMessage(`Saved ${name}`);
              providers.reload();
            }}
          />
        )}
      </div>
      <div className="card">
        <h2>Routes</h2>
        {routes.data?.length === 0 && (
          <p className="muted">No routes. A route sends matching notifications to a provider.</p>
        )}
        {routes.data && routes.data.length > 0 && (
          <div className="table-scroll">
            <table className="stack-table">
              <HeaderWithActions columns={["Name", "Provider", "Gates", "Message", "Enabled"]} />
              <tbody>
                {routes.data.map((route) => (
                  <Fragment key={route.id}>
                    <tr className="route-main">
                      <td data-label="Name">{route.name}</td>
                      <td data-label="Provider">{providerName(route.providerId)}</td>
                      <td data-label="Gates">
                        ≥ {route.minimumPriority}
                        {route.typeId ? `, type ${route.typeId}` : ""}
                        {route.project ? `, project ${route.project}` : ""}
                        {route.agent ? `, agent ${route.agent}` : ""}
                      </td>
                      <td data-label="Message">{route.includeMessage ? "included" : "title only"}</td>
                      <td data-label="Enabled">
                        <input
                          type="checkbox"
                          aria-label={`Route ${route.name} enabled`}
                          checked={route.enabled}
                          onChange={(event) =>
                            void act(() => api.outbound.saveRoute({ enabled: event.target.checked }, route.id), "Saved")
                          }
                        />
                      </td>
                      <td>
                        <button type="button" onClick={() => void testRoute(route.id)}>
                          Test <span className="visually-hidden">route {route.name}</span>
                        </button>{" "}
                        <button
                          type="button"
                          onClick={() => void act(() => api.outbound.deleteRoute(route.id), "Deleted")}
                        >
                          Delete <span className="visually-hidden">route {route.name}</span>
                        </button>
                      </td>
                    </tr>
                    {/* The delivery line and the edit form span the row: a form in the last cell is too narrow. */}
                    <tr className="route-more">
                      <td colSpan={6}>
                        <p className="route-delivery">
                          <span className="muted">
                            Delivery<span className="visually-hidden"> of route {route.name}</span>:
                          </span>{" "}
                          {routingSummary(route)}
                        </p>
                        {unfetched.data?.routes
                          .filter((late) => late.route_id === route.id)
                          .map((late) => (
                            <UnfetchedLine
                              key={late.provider_id}
                              route={late}
                              name={route.name}
                              seconds={unfetched.data?.warn_after_seconds ?? 0}
                            />
                          ))}
                        {routeTests[route.id] !== undefined && (
                          <RouteTestView name={route.name} result={routeTests[route.id] as RouteTestResult | string} />
                        )}
                        {providers.data && (
                          <RouteForm
                            key={route.updatedAt}
                            providers={providers.data}
                            route={route}
                            onSaved={(name) => {
                              setMessage(`Saved route ${name}`);
                              routes.reload();
                            }}
                          />
                        )}
                      </td>
                    </tr>
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {providers.data && (
          <RouteForm
            providers={providers.data}
            onSaved={(name) => {
              setMessage(`Saved route ${name}`);
              routes.reload();
            }}
          />
        )}
      </div>
      <div className="card">
        <h2>Outbox</h2>
        {outbox.data && (
          <p>
            {OUTBOX_STATUSES.map((status) => `${STATUS_TEXT[status]}: ${outbox.data?.counts[status] ?? 0}`).join(" · ")}
          </p>
        )}
        <h3>Dead letters</h3>
        {outbox.data?.items.length === 0 && <p className="muted">None.</p>}
        <ul className="plain-list">
          {outbox.data?.items.map((item) => (
            <li key={item.id} className="config-row">
              <div>
                <strong>{item.payload.title}</strong> to {providerName(item.providerId)}
                <p className="muted">
                  {item.attempts} attempts, last {item.lastCode ?? "?"}
                  {item.lastStatus ? ` (${item.lastStatus})` : ""}, {shortTime(item.updatedAt)}
                </p>
              </div>
              <button type="button" onClick={() => void act(() => api.outbound.retry(item.id), "Queued again")}>
                Retry
              </button>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

/** A route's test, hop by hop: ok or failed, its time, what happened and, for a failure, the fix. */
function RouteTestView({ name, result }: { name: string; result: RouteTestResult | string }) {
  if (typeof result === "string") {
    return (
      <p className="route-test" role="status">
        {result}
      </p>
    );
  }
  return (
    <div className={`route-test route-test-${result.status}`} role="status">
      <p>
        <strong>{result.status === "ok" ? "Test passed" : "Test failed"}</strong>
        <span className="visually-hidden"> for route {name}</span>
      </p>
      <ol className="route-hops">
        {result.hops.map((hop) => (
          <li key={hop.hop} className={`hop-${hop.status}`}>
            <span className="hop-mark" aria-hidden="true">
              {hop.status === "ok" ? "✓" : "✗"}
            </span>{" "}
            <span className="hop-name">{HOP_NAMES[hop.hop]}</span>{" "}
            <span className="visually-hidden">{hop.status === "ok" ? "ok" : "failed"}</span>
            <span className="muted">
              {hop.ms > 0 ? ` ${hop.ms} ms · ` : " "}
              {hop.detail}
            </span>
            {hop.fix !== undefined && <p className="hop-fix">Fix: {hop.fix}</p>}
          </li>
        ))}
      </ol>
    </div>
  );
}

const HOP_NAMES: Record<RouteTestResult["hops"][number]["hop"], string> = {
  provider: "Provider",
  phones: "Phones",
  send: "Send",
  answers: "Answers",
};
