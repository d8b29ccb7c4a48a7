import { api } from "../api/client.js";
import { shortTime } from "../format.js";
import { useLoad } from "../use-load.js";

/** Router › Activity: the newest ledger rows with their attempts, and totals by model over them. */
export function ActivityPage() {
  const activity = useLoad(() => api.router.activity(50));
  const totals = new Map<string, { requests: number; input: number; output: number }>();
  for (const request of activity.data ?? []) {
    const model = request.upstream_model ?? request.requested_model ?? "unknown";
    const total = totals.get(model) ?? { requests: 0, input: 0, output: 0 };
    total.requests++;
    total.input += request.tokens.input ?? 0;
    total.output += request.tokens.output ?? 0;
    totals.set(model, total);
  }
  return (
    <div className="card">
      <h2>Activity</h2>
      {activity.error && <p className="error">{activity.error}</p>}
      {activity.data?.length === 0 && <p className="muted">No requests yet.</p>}
      {totals.size > 0 && (
        <div className="table-scroll">
          <table>
            <caption>Totals by model (last {activity.data?.length} requests)</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Requests</th>
                <th scope="col">Input tokens</th>
                <th scope="col">Output tokens</th>
              </tr>
            </thead>
            <tbody>
              {[...totals].map(([model, total]) => (
                <tr key={model}>
                  <td>{model}</td>
                  <td>{total.requests}</td>
                  <td>{total.input}</td>
                  <td>{total.output}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ul className="plain-list">
        {activity.data?.map((request) => (
          <li key={request.id}>
            <details>
              <summary>
                {shortTime(request.started_at)} {request.requested_model ?? "?"} → {request.upstream_slug ?? "-"}{" "}
                {request.status ?? ""} {request.error_code ?? ""}
              </summary>
              <ol>
                {request.attempts.map((attempt) => (
                  <li key={attempt.ordinal}>
                    {attempt.upstream_slug} {attempt.model}: {attempt.status ?? "no status"} {attempt.error_code ?? ""}{" "}
                    in {attempt.duration_ms} ms
                  </li>
                ))}
              </ol>
            </details>
          </li>
        ))}
      </ul>
    </div>
  );
}
