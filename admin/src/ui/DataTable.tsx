import type { ReactNode } from 'react';

interface DataTableProps {
  /** The table's accessible name (aria-label)… */
  label?: string;
  /** …or the id of the heading that names it (aria-labelledby). */
  labelledBy?: string;
  /** Classes besides `data-table`. */
  className?: string;
  /** The column headers, in order; false, null or undefined (a column not shown) is left out. */
  columns: readonly ReactNode[];
  /** The body rows. */
  children: ReactNode;
}

/** The console's list table: a `data-table` with a header row of `<th scope="col">` cells and the rows given. */
export function DataTable({ label, labelledBy, className, columns, children }: DataTableProps) {
  return (
    <table className={className ? `data-table ${className}` : 'data-table'} aria-label={label} aria-labelledby={labelledBy}>
      <thead>
        <tr>
          {columns
            .filter((column) => column !== false && column !== null && column !== undefined)
            .map((column, index) => (
              <th scope="col" key={index}>
                {column}
              </th>
            ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
