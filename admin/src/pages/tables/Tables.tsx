import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useApiMutation } from '../../data/api.js';
import { contentsKeys } from '../../data/contents/keys.js';
import { tableKeys } from '../../data/tables/keys.js';
import { useTables, type Table } from '../../data/tables/queries.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { Button } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, PageHeader } from '../../ui/feedback.js';
import { ColumnsEditor } from './ColumnsEditor.js';
import { STATUS_OPTIONS, TableForm } from './TableForm.js';
import './Tables.css';

type Editing = { kind: 'new' } | { kind: 'edit'; table: Table } | { kind: 'delete'; table: Table } | null;

const statusLabel = (status: Table['defaultStatus']) => STATUS_OPTIONS.find((s) => s.id === status)?.label ?? status;

/**
 * The project's tables (create, edit, delete) and the columns of the one chosen, which the address
 * names (`?table=<id>`) so that a reload or a shared link opens the same table.
 */
export function TablesPage() {
  const { projectId } = useParams();
  const pid = projectId!;
  const [search, setSearch] = useSearchParams();
  const [editing, setEditing] = useState<Editing>(null);
  // The same query as the project's sidebar: one read, and every write here refreshes both.
  const tables = useTables(pid);
  const remove = useApiMutation((client, table: Table) => client.tables.delete.mutate({ projectId: pid, tableId: table.id }), [tableKeys.all(pid), contentsKeys.all(pid)]);
  const list = tables.data?.list ?? [];
  const selected = list.find((t) => t.id === search.get('table')) ?? list[0];
  const choose = (table: Table | undefined) => setSearch(table ? { table: table.id } : {}, { replace: true });
  const close = () => {
    remove.reset();
    setEditing(null);
  };
  return (
    <>
      <PageHeader title="Tables and columns">
        <Button variant="primary" onPress={() => setEditing({ kind: 'new' })}>
          New table
        </Button>
      </PageHeader>
      <ErrorBanner error={tables.error} />
      <ListState pending={tables.isPending} items={list} empty="No table yet: create the first one with “New table”.">
        <DataTable className="tables-list" label="Tables" columns={['Name', 'Key', 'Description', 'New rows', <span className="visually-hidden">Actions</span>]}>
          {list.map((table) => (
            <tr key={table.id} className={table.id === selected?.id ? 'is-selected' : undefined}>
              <td>
                <Link to={{ search: `?table=${table.id}` }} aria-current={table.id === selected?.id ? 'true' : undefined} aria-label={`Columns of ${table.name}`}>
                  {table.name}
                </Link>
              </td>
              <td>
                <code>{table.key}</code>
              </td>
              <td className="table-description">{table.description || <span className="muted">—</span>}</td>
              <td>
                <span className={`badge badge-${table.defaultStatus.toLowerCase()}`}>{statusLabel(table.defaultStatus)}</span>
              </td>
              <td className="actions">
                <Link className="btn btn-ghost" to={table.id} aria-label={`Contents of ${table.name}`}>
                  Contents
                </Link>
                <Button variant="ghost" aria-label={`Edit the table ${table.name}`} onPress={() => setEditing({ kind: 'edit', table })}>
                  Edit
                </Button>
                <Button variant="ghost" aria-label={`Delete the table ${table.name}`} onPress={() => setEditing({ kind: 'delete', table })}>
                  Delete
                </Button>
              </td>
            </tr>
          ))}
        </DataTable>
      </ListState>
      {selected && <ColumnsEditor key={selected.id} projectId={pid} table={selected} tables={list} />}
      {(editing?.kind === 'new' || editing?.kind === 'edit') && (
        <TableForm
          projectId={pid}
          table={editing.kind === 'edit' ? editing.table : undefined}
          onClose={close}
          onSaved={(table) => {
            close();
            choose(table);
          }}
        />
      )}
      {editing?.kind === 'delete' && (
        <ConfirmDialog
          isOpen
          role="alertdialog"
          title={`Delete the table ${editing.table.name}?`}
          confirmLabel="Delete table"
          onConfirm={() =>
            remove.mutate(editing.table, {
              onSuccess: () => {
                if (editing.table.id === selected?.id) choose(undefined);
                close();
              },
            })
          }
          onClose={close}
          isPending={remove.isPending}
          error={remove.error}
        >
          <p>
            The table <code>{editing.table.key}</code>, its columns and all its rows are removed. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
