/**
 * The header of a table whose rows end in buttons: a `col` heading for each of `columns`, then the buttons' column,
 * named "Actions" for screen readers only.
 */
export function HeaderWithActions({ columns }: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        <th scope="col">
          <span className="visually-hidden">Actions</span>
        </th>
      </tr>
    </thead>
  );
}
