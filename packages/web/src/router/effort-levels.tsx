import type { EffortFamilyView, EffortOverrideSet, EffortTableView, EffortValue } from "@notify/contracts/ui";
import { EFFORT_LEVELS } from "@notify/contracts/ui-constants";

/** One row per level plus the default. */
export const ROWS = [...EFFORT_LEVELS, "default"] as const;
export type Row = (typeof ROWS)[number];

/** What a row's select holds: "" = nothing set here (what lies below applies), OMIT = explicit omit, or a value. */
export const OMIT = "(omit)";
export type Draft = Record<Row, string>;

export function draftOf(set: EffortOverrideSet | null | undefined): Draft {
  const cell = (value: EffortValue | undefined) => (value === undefined ? "" : value === null ? OMIT : value);
  const draft = { default: cell(set?.default) } as Draft;
  for (const level of EFFORT_LEVELS) draft[level] = cell(set?.levels?.[level]);
  return draft;
}

/** The override set a draft stands for: rows left empty are not part of it. */
export function setOf(draft: Draft): EffortOverrideSet {
  const value = (cell: string): EffortValue => (cell === OMIT ? null : cell);
  const levels: EffortOverrideSet["levels"] = {};
  for (const level of EFFORT_LEVELS) if (draft[level] !== "") levels[level] = value(draft[level]);
  return {
    ...(Object.keys(levels).length > 0 ? { levels } : {}),
    ...(draft.default !== "" ? { default: value(draft.default) } : {}),
  };
}

export const shown = (value: EffortValue | undefined): string =>
  value === undefined ? "–" : value === null ? "omit" : value;

/** The family whose pattern matches a model (as the router matches: last path part, lower-cased), if any. */
export function familyFor(model: string, families: EffortFamilyView[]): EffortFamilyView | undefined {
  const key = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  if (key === "") return undefined;
  return families.find((family) => new RegExp(family.pattern).test(key));
}

/**
 * The level table of an override form: per row, what lies below (`base`, e.g. the automatic table), a select for
 * this set (nothing, omit, or one of `accepted`), and optionally what requests get now. Selects are named
 * "Override for <level>"; the form around the table names the set.
 */
export function LevelTable({
  caption,
  base,
  baseLabel,
  keepLabel,
  accepted,
  draft,
  effective,
  onChange,
}: {
  caption: string;
  base: EffortTableView | undefined;
  baseLabel: string;
  /** The text of the empty choice: what lies below applies. */
  keepLabel: string;
  accepted: readonly string[];
  draft: Draft;
  effective?: EffortTableView;
  onChange: (draft: Draft) => void;
}) {
  const below = (row: Row) => (base ? (row === "default" ? base.default : base.levels[row]) : undefined);
  return (
    <div className="table-scroll effort-scroll">
      <table className="effort-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Level</th>
            <th scope="col">{baseLabel}</th>
            <th scope="col">Override</th>
            {effective && <th scope="col">Requests get</th>}
          </tr>
        </thead>
        <tbody>
          {ROWS.map((row) => (
            <tr key={row}>
              <th scope="row">{row === "default" ? "default (none sent)" : row}</th>
              <td>{shown(below(row))}</td>
              <td>
                <select
                  aria-label={`Override for ${row === "default" ? "the default" : row}`}
                  value={draft[row]}
                  onChange={(event) => onChange({ ...draft, [row]: event.target.value })}
                >
                  <option value="">{keepLabel}</option>
                  <option value={OMIT}>omit (no effort field)</option>
                  {accepted.map((value) => (
                    <option key={value} value={value}>
                      {value}
                    </option>
                  ))}
                </select>
              </td>
              {effective && <td>{shown(row === "default" ? effective.default : effective.levels[row])}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
