import { useParams } from 'react-router';
import { useColumns } from '../schema.js';
import { PageHeader } from '../ui/feedback.js';
import { RevisionsPanel } from './editor/RevisionsPanel.js';

export function ContentEditorPage() {
  const { projectId, tableId, contentId } = useParams();
  const columns = useColumns(projectId!, tableId!);
  return (
    <>
      <PageHeader title="Edit contents" />
      {contentId !== 'new' && columns.data && <RevisionsPanel projectId={projectId!} tableId={tableId!} contentId={contentId!} columns={columns.data} />}
    </>
  );
}
