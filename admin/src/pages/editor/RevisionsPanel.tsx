import type { Column } from '../../schema.js';

export interface RevisionsPanelProps {
  projectId: string;
  tableId: string;
  contentId: string;
  columns: Column[];
}

export function RevisionsPanel(_props: RevisionsPanelProps) {
  return <section aria-label="Revisions" />;
}
