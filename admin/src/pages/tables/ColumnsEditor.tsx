import { useEffect, useRef, useState } from 'react';
import { useApiMutation } from '../../data/api.js';
import { useColumns, type Column } from '../../data/columns/queries.js';
import { contentsKeys } from '../../data/contents/keys.js';
import { tableKeys } from '../../data/tables/keys.js';
import type { Table } from '../../data/tables/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState } from '../../ui/feedback.js';
import { ColumnForm } from './ColumnForm.js';
import { COLUMN_TYPES, settingsSummary } from './column-types.js';

type Editing = { kind: 'new' } | { kind: 'edit'; column: Column } | { kind: 'delete'; column: Column } | null;

/**
 * The columns of one table, in position order (new columns are appended), with their settings in
 * short, and the forms that add, edit and delete them. A column moves by dragging its row onto
 * another's place, or with the arrow keys on its "Move" handle (`PUT .../columns/{id}` with
 * `position`, docs/contents.md#tables-and-columns); the handle keeps the focus.
 */
export function ColumnsEditor({ projectId, table, tables }: { projectId: string; table: Table; tables: Table[] }) {
  const columns = useColumns(projectId, table.id);
  const [editing, setEditing] = useState<Editing>(null);
  const remove = useApiMutation((client, column: Column) => client.columns.delete.mutate({ projectId, tableId: table.id, columnId: column.id }), [
    tableKeys.all(projectId),
    contentsKeys.table(projectId, table.id),
  ]);
  const move = useApiMutation(
    (client, input: { columnId: string; position: number }) => client.columns.update.mutate({ projectId, tableId: table.id, ...input }),
    [tableKeys.all(projectId), contentsKeys.table(projectId, table.id)],
  );
  const [dragged, setDragged] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');
  const refocus = useRef<string | null>(null);
  useEffect(() => {
    if (!refocus.current) return;
    document.querySelector<HTMLElement>(`[data-move="${refocus.current}"]`)?.focus();
  });
  const moveTo = (column: Column, index: number) => {
    const list = columns.data ?? [];
    if (index < 0 || index >= list.length || list[index].id === column.id) return;
    refocus.current = column.id;
    move.mutate({ columnId: column.id, position: index + 1 }, { onSuccess: () => setAnnounce(`${column.name} moved to place ${index + 1} of ${list.length}.`) });
  };
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
      <ErrorBanner error={columns.error ?? move.error} />
      <p className="visually-hidden" role="status">{announce}</p>
      <ListState pending={columns.isPending} items={columns.data} empty="No column yet: add the first one.">
        <DataTable labelledBy="columns-heading" columns={['#', 'Name', 'Label', 'Type', 'Settings', <span className="visually-hidden">Actions</span>]}>
          {columns.data?.map((column, index) => (
            <tr
              key={column.id}
              draggable
              className={dragged === column.id ? 'column-dragged' : undefined}
              onDragStart={(event) => {
                event.dataTransfer.effectAllowed = 'move';
                event.dataTransfer.setData('text/plain', column.id);
                setDragged(column.id);
              }}
              onDragEnd={() => setDragged(null)}
              onDragOver={(event) => event.preventDefault()}
              onDrop={(event) => {
                event.preventDefault();
                const moving = columns.data?.find((c) => c.id === event.dataTransfer.getData('text/plain'));
                setDragged(null);
                if (moving) moveTo(moving, index);
              }}
            >
              <td className="muted">
                <button
                  type="button"
                  className="btn btn-ghost column-move"
                  data-move={column.id}
                  aria-label={`Move ${column.name}, place ${index + 1} of ${columns.data?.length}`}
                  aria-describedby="column-move-help"
                  disabled={move.isPending}
                  onKeyDown={(event) => {
                    const to = { ArrowUp: index - 1, ArrowDown: index + 1, Home: 0, End: (columns.data?.length ?? 1) - 1 }[event.key];
                    if (to === undefined) return;
                    event.preventDefault();
                    moveTo(column, to);
                  }}
                >
                  <span aria-hidden="true">⠿</span> {index + 1}
                </button>
              </td>
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
        </DataTable>
      </ListState>
      <p id="column-move-help" className="muted">
        To reorder, drag a row, or focus its handle and press the up or down arrow (Home, End: first, last).
      </p>
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
