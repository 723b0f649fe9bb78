import { useState } from 'react';
import { useApiMutation } from '../../data/api.js';
import { useColumns, type Column } from '../../data/columns/queries.js';
import { contentsKeys } from '../../data/contents/keys.js';
import { tableKeys } from '../../data/tables/keys.js';
import type { Table } from '../../data/tables/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button } from '../../ui/controls.js';
import { Empty, ErrorBanner, Loading } from '../../ui/feedback.js';
import { ColumnForm } from './ColumnForm.js';
import { COLUMN_TYPES, settingsSummary } from './column-types.js';

type Editing = { kind: 'new' } | { kind: 'edit'; column: Column } | { kind: 'delete'; column: Column } | null;

/**
 * The columns of one table, in position order (new columns are appended; the API has no way to
 * move one), with their settings in short, and the forms that add, edit and delete them.
 */
export function ColumnsEditor({ projectId, table, tables }: { projectId: string; table: Table; tables: Table[] }) {
  const columns = useColumns(projectId, table.id);
  const [editing, setEditing] = useState<Editing>(null);
  const remove = useApiMutation((client, column: Column) => client.columns.delete.mutate({ projectId, tableId: table.id, columnId: column.id }), [
    tableKeys.all(projectId),
    contentsKeys.table(projectId, table.id),
  ]);
  const tableName = (id: string) => tables.find((t) => t.id === id)?.name ?? id;
  const close = () => {
    remove.reset();
    setEditing(null);
  };
  return (
    <section className="card columns-editor" aria-labelledby="columns-heading">
      <div className="page-header">
        <h2 id="columns-heading">Columns of {table.name}</h2>
        <Button variant="primary" onPress={() => setEditing({ kind: 'new' })}>
          Add column
        </Button>
      </div>
      <ErrorBanner error={columns.error} />
      {columns.isPending ? (
        <Loading />
      ) : columns.data?.length === 0 ? (
        <Empty>No column yet: add the first one.</Empty>
      ) : (
        <table className="data-table" aria-labelledby="columns-heading">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Name</th>
              <th scope="col">Label</th>
              <th scope="col">Type</th>
              <th scope="col">Settings</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {columns.data?.map((column) => (
              <tr key={column.id}>
                <td className="muted">{column.position}</td>
                <td>
                  <code>{column.name}</code>
                </td>
                <td>{column.label}</td>
                <td>{COLUMN_TYPES[column.type].label}</td>
                <td>
                  <ul className="setting-list" aria-label={`Settings of ${column.name}`}>
                    {settingsSummary(column, tableName).map((part) => (
                      <li key={part} className="badge">
                        {part}
                      </li>
                    ))}
                  </ul>
                </td>
                <td className="actions">
                  <Button variant="ghost" aria-label={`Edit the column ${column.name}`} onPress={() => setEditing({ kind: 'edit', column })}>
                    Edit
                  </Button>
                  <Button variant="ghost" aria-label={`Delete the column ${column.name}`} onPress={() => setEditing({ kind: 'delete', column })}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(editing?.kind === 'new' || editing?.kind === 'edit') && (
        <ColumnForm
          projectId={projectId}
          table={table}
          column={editing.kind === 'edit' ? editing.column : undefined}
          columns={columns.data ?? []}
          tables={tables}
          onClose={close}
        />
      )}
      {editing?.kind === 'delete' && (
        <ConfirmDialog
          isOpen
          role="alertdialog"
          title={`Delete the column ${editing.column.name}?`}
          confirmLabel="Delete column"
          onConfirm={() => remove.mutate(editing.column, { onSuccess: close })}
          onClose={close}
          isPending={remove.isPending}
          error={remove.error}
        >
          <p>
            Its values are removed from every row of {table.name}. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
