import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useColumns } from '../../data/columns/queries.js';
import { useTable } from '../../data/tables/queries.js';
import { useClient } from '../../data/session/session.js';
import { Button, SelectInput } from '../../ui/controls.js';
import { BulkActions } from './BulkActions.js';
import { Empty, ErrorBanner, Loading, PageHeader } from '../../ui/feedback.js';
import { ColumnsPanel } from './ColumnsPanel.js';
import { useColumnPrefs } from './column-prefs.js';
import { ListPager } from './ListPager.js';
import { shownColumns } from './shown-columns.js';
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
  // Stable, so that the memoized rows of the grid draw again only when their own selection changes.
  const select = useCallback(
    (ids: string[], on: boolean) =>
      setSelected((previous) => {
        const next = new Set(previous);
        for (const id of ids) (on ? next.add(id) : next.delete(id));
        return next;
      }),
    [],
  );
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

  // The grid's columns, less those hidden here, at the widths set here (column-prefs.ts).
  const { prefs, setShown, setWidth, reset } = useColumnPrefs(tableId);
  const display = table.data?.settings.display;
  const allShown = useMemo(() => (columns.data ? shownColumns(columns.data, sortPaths, project.defaultLocale, display) : []), [columns.data, sortPaths, project.defaultLocale, display]);
  const shown = useMemo(
    () => allShown.filter((c, index) => index === 0 || !prefs.hidden.includes(c.id)).map((c) => (prefs.widths[c.id] ? { ...c, width: prefs.widths[c.id] } : c)),
    [allShown, prefs],
  );

  const name = table.data?.name ?? 'Contents';
  const searched = state.search.trim() !== '';
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
          <ColumnsPanel columns={allShown} prefs={prefs} onShown={setShown} onWidth={setWidth} onReset={reset} />
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
          {searched && pagination && (
            // A search is counted (useContentsPage.ts): its total, before the rows.
            <p className="list-results" role="status">
              {pagination.total === null ? (pagination.hasNext ? `More than ${rows.data.list.length} results` : resultsWord(rows.data.list.length)) : resultsWord(pagination.total)}
            </p>
          )}
          <ContentsTable label={`Rows of ${name}`} shown={shown} items={rows.data.list} sort={state.sort} onSort={(sort) => update({ sort })} rowsPath={`${base}/rows`} selected={selected} onSelect={select} onWidth={setWidth} />
          {pagination && (state.page > 1 || pagination.hasNext) && (
            <ListPager page={state.page} pages={pagination.pages ?? (pagination.hasNext ? null : state.page)} total={pagination.total} onPage={goTo} />
          )}
          {pagination && state.page === 1 && !pagination.hasNext && !searched && (
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

const resultsWord = (n: number) => (n === 1 ? '1 result' : `${n} results`);
