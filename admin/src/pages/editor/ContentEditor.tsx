import { Link, useParams } from 'react-router';
import { useColumns } from '../../data/columns/queries.js';
import { useContentRow } from '../../data/contents/queries.js';
import { useTable } from '../../data/tables/queries.js';
import { ErrorBanner, Loading, PageHeader } from '../../ui/feedback.js';
import { RowEditor } from './RowEditor.js';
import './ContentEditor.css';

/**
 * The contents editor (docs/console.md#what-it-covers): a form generated from the table's columns, for a new row
 * (`rows/new`) or an existing one, with its status, scheduling, draft and revisions beside it.
 */
export function ContentEditorPage() {
  const { workspaceId, projectId, tableId, contentId } = useParams() as Record<'workspaceId' | 'projectId' | 'tableId' | 'contentId', string>;
  const isNew = contentId === 'new';
  const table = useTable(projectId, tableId);
  const columns = useColumns(projectId, tableId);
  const row = useContentRow(projectId, tableId, contentId, { enabled: !isNew });
  const listAddress = `/w/${workspaceId}/p/${projectId}/tables/${tableId}`;

  const failure = table.error ?? columns.error ?? row.error;
  if (failure) {
    return (
      <>
        <PageHeader title="Edit contents">
          <Link to={listAddress}>Back to the rows</Link>
        </PageHeader>
        <ErrorBanner error={failure} />
      </>
    );
  }
  if (!table.data || !columns.data || (!isNew && !row.data)) return <Loading />;
  return <RowEditor key={contentId} projectId={projectId} tableId={tableId} listAddress={listAddress} table={table.data} columns={columns.data} row={isNew ? null : row.data!} />;
}
