import { agentString } from "../agent-text.js";
import type { InboxFilter } from "./filters.js";

interface Props {
  filter: InboxFilter;
  onChange: (filter: InboxFilter) => void;
  types: string[];
  projects: string[];
  agents: string[];
  shown: number;
  total: number;
}

const STATUSES = ["active", "dismissed", "resolved", "pending", "answered", "expired", "cancelled", "superseded"];

export function InboxFilters({ filter, onChange, types, projects, agents, shown, total }: Props) {
  const set = (change: Partial<InboxFilter>) => onChange({ ...filter, ...change });
  return (
    <search className="filters" aria-label="Filter the inbox">
      <label className="search-box">
        <span>Search</span>
        <input type="search" value={filter.search} onChange={(event) => set({ search: event.target.value })} />
      </label>
      <Select label="Status" value={filter.status} options={STATUSES} onChange={(status) => set({ status })} />
      <Select label="Type" value={filter.type} options={types} onChange={(type) => set({ type })} />
      <Select label="Project" value={filter.project} options={projects} onChange={(project) => set({ project })} />
      <Select label="Agent" value={filter.agent} options={agents} onChange={(agent) => set({ agent })} />
      <label className="check">
        <input
          type="checkbox"
          checked={filter.unresolved}
          onChange={(event) => set({ unresolved: event.target.checked })}
        />
        <span>Unresolved only</span>
      </label>
      <p className="count" aria-live="polite">
        {shown === total ? `${total} items` : `${shown} of ${total} items`}
      </p>
    </search>
  );
}

function Select(props: { label: string; value: string; options: string[]; onChange: (value: string) => void }) {
  return (
    <label>
      <span>{props.label}</span>
      <select value={props.value} onChange={(event) => props.onChange(event.target.value)}>
        <option value="">All</option>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {agentString(option).replaceAll("_", " ")}
          </option>
        ))}
      </select>
    </label>
  );
}
