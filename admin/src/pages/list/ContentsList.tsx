import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useColumns } from '../../data/columns/queries.js';
import { useTable } from '../../data/tables/queries.js';
import { useClient } from '../../data/session/session.js';
import { Button, SelectInput } from '../../ui/controls.js';
import { BulkActions } from './BulkActions.js';
import { Empty, ErrorBanner, Loading, PageHeader, Pager } from '../../ui/feedback.js';
import { ContentsTable } from './ContentsTable.js';
import { labelColumnOf, rowLabel } from './cells.js';
import { columnField, SYSTEM_FIELDS, type ListField } from './fields.js';
import { useProject } from '../../data/projects/context.js';
import { FilterBuilder } from './FilterBuilder.js';
import { PAGE_SIZES, useListState } from './list-state.js';
import { useReferenceLabels } from './reference-labels.js';
import { SearchBox } from './SearchBox.js';
import { cursorOf, listQuery, rememberCursor, useContentsPage } from './useContentsPage.js';
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

  // The selection (bulk actions) holds across pages; it is cleared when the listing changes.
  const client = useClient();
  const project = useProject();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [selecting, setSelecting] = useState(false);
  const listing = JSON.stringify([tableId, state.search, state.conditions, state.op]);
  useEffect(() => setSelected(new Set()), [listing]);
  const select = (ids: string[], on: boolean) =>
    setSelected((previous) => {
      const next = new Set(previous);
      for (const id of ids) (on ? next.add(id) : next.delete(id));
      return next;
    });
  /** Every row of the listing (its filter and search), read 1,000 ids at a time. */
  const selectAllMatching = async () => {
    setSelecting(true);
    try {
      const { search, filter, op } = listQuery(state);
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.contents.list.query({ projectId, tableId, search, filter, op, fields: 'id', size: 1000, withCount: 'false', ...(cursor ? { cursor } : {}) });
        ids.push(...page.list.map((r) => r.id));
        cursor = page.pagination.nextCursor ?? undefined;
      } while (cursor);
      setSelected(new Set(ids));
    } finally {
      setSelecting(false);
    }
  };
  const pageItems = rows.data?.list ?? [];

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
        <Link className="btn btn-secondary" to={`${base}/io${window.location.search}`}>
          Import and export
        </Link>
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
      {columns.data && rows.data && (
        <div className="toolbar bulk-select">
          <Button isDisabled={selecting} onPress={() => void selectAllMatching()}>
            {selecting ? 'Selecting…' : state.search || state.conditions.length > 0 ? 'Select every matching row' : 'Select every row'}
          </Button>
        </div>
      )}
      {selected.size > 0 && (
        <BulkActions
          projectId={projectId}
          tableId={tableId}
          selected={[...selected]}
          statusOf={(id) => pageItems.find((r) => r.id === id)?.status}
          labelOf={(id) => {
            // Rows of the page shown by their name; rows of other pages by their id.
            const item = pageItems.find((r) => r.id === id);
            return item ? `${rowLabel(item, labelColumnOf(columns.data ?? []), project.defaultLocale, project.defaultLocale)} (${id})` : id;
          }}
          onClear={() => setSelected(new Set())}
        />
      )}
      {columns.data && <FilterBuilder fields={fields} conditions={state.conditions} op={state.op} onChange={(conditions, op) => update({ conditions, op })} />}
      <ErrorBanner error={rows.error} />
      {!rows.data && !rows.error && <Loading label="Loading rows…" />}
      {columns.data && rows.data && (
        <div className={rows.isPlaceholderData ? 'list-body list-stale' : 'list-body'} aria-busy={rows.isFetching}>
          {columns.data.length === 0 && <Empty>This table has no columns yet: add them under Tables and columns.</Empty>}
          <ContentsTable label={`Rows of ${name}`} columns={columns.data} sortPaths={sortPaths} items={rows.data.list} sort={state.sort} onSort={(sort) => update({ sort })} rowsPath={`${base}/rows`} selected={selected} onSelect={select} display={table.data?.settings.display} />
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
