import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";

/** Prepares each SQL text once: a query built from the filters in use gets one statement per combination. */
export class StatementCache {
  private readonly statements = new Map<string, StatementSync>();

  constructor(private readonly db: DatabaseSync) {}

  get(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/**
 * A WHERE clause (empty when nothing filters) of the fixed `conditions` that are set, then `column = ?` for each
 * column whose value is given, with the values as its parameters in that order. The column names and conditions
 * come from the store's own code, never from a request.
 */
export function whereClause(
  conditions: readonly (string | false | undefined)[],
  equals: Readonly<Record<string, SQLInputValue | undefined>>,
): { where: string; params: SQLInputValue[] } {
  const clauses = conditions.filter((condition): condition is string => typeof condition === "string");
  const params: SQLInputValue[] = [];
  for (const [column, value] of Object.entries(equals)) {
    if (value === undefined) continue;
    clauses.push(`${column} = ?`);
    params.push(value);
  }
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "", params };
}
