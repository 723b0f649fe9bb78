import { Link, useParams, useSearchParams } from 'react-router';
import { useColumns } from '../../data/columns/queries.js';
import { useMyAccess } from '../../data/projects/access.js';
import { useTable } from '../../data/tables/queries.js';
import { ErrorBanner, Loading, PageHeader } from '../../ui/feedback.js';
import { ExportPanel } from './ExportPanel.js';
import { ImportPanel } from './ImportPanel.js';
import './TableIo.css';

/**
 * A table's import and export (docs/console.md#import-and-export). The contents list links here
 * with its own address parameters (`q`, `filter`, `op`, `sort`: list-state.ts), so the export
 * holds the rows the list showed, in its order.
 */
export function TableIoPage() {
  const { workspaceId, projectId, tableId } = useParams();
  const [params] = useSearchParams();
  const table = useTable(projectId!, tableId!);
  const columns = useColumns(projectId!, tableId!);
  // A VIEWER exports only; a custom role imports what its rules let it write (the API says which lines not).
  const access = useMyAccess(workspaceId!, projectId!);
  const readOnly = access.ready && !access.canWrite && access.customRoleId === null;
  const sort = params.get('sort');
  const search = params.get('q')?.trim() ?? '';
  const filter = params.get('filter') ?? '';
  const query = {
    ...(filter ? { filter, op: params.get('op') === 'or' ? ('or' as const) : ('and' as const) } : {}),
    ...(search ? { search } : {}),
    ...(sort ? { sort: JSON.stringify([{ i: sort.replace(/^-/, ''), o: sort.startsWith('-') ? 'desc' : 'asc' }]) } : {}),
  };
  const parts = [filter && 'the list’s filter', search && `the search “${search}”`, sort && `sorted by ${sort.replace(/^-/, '')}${sort.startsWith('-') ? ' (descending)' : ''}`].filter(Boolean);
  const described = parts.length > 0 ? `The rows the list shows: ${parts.join(', ')}.` : 'Every row of the table, newest first.';
  const listUrl = `/w/${workspaceId}/p/${projectId}/tables/${tableId}${params.size > 0 ? `?${params}` : ''}`;
  if (table.error || columns.error) return <ErrorBanner error={table.error ?? columns.error} />;
  if (!table.data || !columns.data) return <Loading />;
  return (
    <>
      <PageHeader title={`Import and export: ${table.data.name}`}>
        <Link className="btn btn-secondary" to={listUrl}>
          Back to the list
        </Link>
      </PageHeader>
      <div className="io-panels">
        {!readOnly && <ImportPanel projectId={projectId!} tableId={tableId!} columns={columns.data} />}
        <ExportPanel projectId={projectId!} tableId={tableId!} tableKey={table.data.key} query={query} described={described} />
      </div>
    </>
  );
}
