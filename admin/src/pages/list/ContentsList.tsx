import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { useColumns } from '../../data/columns/queries.js';
import { useTable } from '../../data/tables/queries.js';
import { SelectInput } from '../../ui/controls.js';
import { Empty, ErrorBanner, Loading, PageHeader, Pager } from '../../ui/feedback.js';
import { ContentsTable } from './ContentsTable.js';
import { columnField, SYSTEM_FIELDS, type ListField } from './fields.js';
import { FilterBuilder } from './FilterBuilder.js';
import { PAGE_SIZES, useListState } from './list-state.js';
import { useReferenceLabels } from './reference-labels.js';
import { SearchBox } from './SearchBox.js';
import { cursorOf, rememberCursor, useContentsPage } from './useContentsPage.js';
import './ContentsList.css';

/**
 * A table's rows (docs/console.md#what-it-covers): sortable by any column header, searched, filtered, paged, each row a
 * link to its editor. Everything that decides what is shown is in the address (list-state.ts), and
 * the page reads itself again when another editor writes to the table (realtime.ts).
 */
export function ContentsListPage() {
  const { workspaceId, projectId, tableId } = useParams() as { workspaceId: string; projectId: string; tableId: string };
  const table = useTable(projectId, tableId);
  const columns = useColumns(projectId, tableId);
  const [state, update] = useListState();
  const rows = useContentsPage(projectId, tableId, columns.data, state);
  const sortPaths = useReferenceLabels(projectId, columns.data);
  const base = `/w/${workspaceId}/p/${projectId}/tables/${tableId}`;

  const nextCursor = rows.data?.pagination.nextCursor;
  useEffect(() => {
    if (nextCursor && !rows.isPlaceholderData) rememberCursor(tableId, state, state.page + 1, nextCursor);
  }, [nextCursor, rows.isPlaceholderData, tableId, state]);

  const name = table.data?.name ?? 'Contents';
  const fields: ListField[] = [...(columns.data ?? []).map(columnField), ...SYSTEM_FIELDS];
  const pagination = rows.data?.pagination;
  const goTo = (page: number) => {
    if (page === state.page + 1 && nextCursor) update({ page, after: nextCursor });
    else update({ page, after: page > 1 ? cursorOf(tableId, state, page) : null });
  };

  return (
    <>
      <PageHeader title={name}>
        <Link className="btn btn-primary" to={`${base}/rows/new`}>
          New row
        </Link>
      </PageHeader>
      {table.data?.description && <p className="muted list-description">{table.data.description}</p>}
      <ErrorBanner error={table.error ?? columns.error} />
      {columns.data && (
        <div className="toolbar list-toolbar">
          <SearchBox value={state.search} onSearch={(search) => update({ search }, { replace: true })} />
          <SelectInput label="Rows per page" value={String(state.size)} options={PAGE_SIZES.map((s) => ({ id: String(s), label: String(s) }))} onChange={(size) => update({ size: Number(size) })} />
        </div>
      )}
      {columns.data && <FilterBuilder fields={fields} conditions={state.conditions} op={state.op} onChange={(conditions, op) => update({ conditions, op })} />}
      <ErrorBanner error={rows.error} />
      {!rows.data && !rows.error && <Loading label="Loading rows…" />}
      {columns.data && rows.data && (
        <div className={rows.isPlaceholderData ? 'list-body list-stale' : 'list-body'} aria-busy={rows.isFetching}>
          {columns.data.length === 0 && <Empty>This table has no columns yet: add them under Tables and columns.</Empty>}
          <ContentsTable label={`Rows of ${name}`} columns={columns.data} sortPaths={sortPaths} items={rows.data.list} sort={state.sort} onSort={(sort) => update({ sort })} rowsPath={`${base}/rows`} />
          {pagination && (state.page > 1 || pagination.hasNext) && (
            <Pager page={state.page} pages={pagination.pages ?? (pagination.hasNext ? null : state.page)} total={pagination.total} onPage={goTo} />
          )}
          {pagination && state.page === 1 && !pagination.hasNext && (
            // One page holds every match: its length is the count, uncounted or not.
            <p className="muted list-count" aria-live="polite">
              {rows.data.list.length === 1 ? '1 row' : `${rows.data.list.length} rows`}
            </p>
          )}
        </div>
      )}
    </>
  );
}
