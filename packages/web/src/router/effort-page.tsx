/** Router › Effort mapping: families and per-model override sets (built in the next step). */
export function EffortPage() {
  return (
    <div className="card">
      <h2>Effort mapping</h2>
      <p className="muted">How one effort setting maps onto each model family.</p>
    </div>
  );
}
