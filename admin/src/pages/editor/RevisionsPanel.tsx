import { useId, useState } from 'react';
import type { Column } from '../../data/columns/queries.js';
import { useProject } from '../../data/projects/context.js';
import { useRevisionPage, type Revision } from '../../data/revisions/queries.js';
import { Empty, ErrorBanner, Loading, Pager } from '../../ui/feedback.js';
import { useActorNames } from '../revisions/actor-names.js';
import { RevisionDetail, type Compare } from '../revisions/RevisionDetail.js';
import { RevisionList } from '../revisions/RevisionList.js';
import '../revisions/revisions.css';

export interface RevisionsPanelProps {
  projectId: string;
  tableId: string;
  contentId: string;
  columns: Column[];
  /** The editor saves into the draft of a published row: restores go there too. */
  toDraft?: boolean;
  /** Revisions per page of the list. */
  pageSize?: number;
}

/**
 * A row's history (docs/contents.md#revisions): its revisions newest first, a page at a time; the one chosen shown
 * as a diff, with "Restore this version". A restore refreshes every query of the table's
 * contents, so the editor around the panel shows the restored values.
 */
export function RevisionsPanel({ projectId, tableId, contentId, columns, toDraft = false, pageSize = 10 }: RevisionsPanelProps) {
  const project = useProject();
  const headingId = useId();
  const row = { projectId, tableId, contentId };
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Revision | null>(null);
  const [restored, setRestored] = useState<{ version: number; toDraft: boolean } | null>(null);
  // Kept while moving from version to version: a person comparing with the current row goes on doing so.
  const [compare, setCompare] = useState<Compare>('previous');
  const revisions = useRevisionPage(row, page, pageSize);
  const names = useActorNames(project.workspaceId, projectId);
  const list = revisions.data?.list ?? [];

  return (
    <section className="revisions card" aria-labelledby={headingId}>
      <h2 id={headingId}>Revisions</h2>
      <ErrorBanner error={revisions.error} />
      {restored !== null && (
        <p role="status" className="banner banner-ok">
          {restored.toDraft
            ? `Version ${restored.version} restored into the draft: the published version stays live until the draft is published.`
            : `Version ${restored.version} restored: the row has its values again, recorded as a new version.`}
        </p>
      )}
      {revisions.isLoading && <Loading label="Loading revisions…" />}
      {revisions.data && list.length === 0 && <Empty>This row has no revisions.</Empty>}
      {list.length > 0 && (
        <div className="revisions-layout">
          <div className="revisions-list-column">
            <RevisionList
              revisions={list}
              selected={selected?.version ?? null}
              names={names}
              onSelect={(revision) => {
                setRestored(null);
                setSelected(revision);
              }}
            />
            {revisions.data && (revisions.data.pagination.pages ?? 1) > 1 && (
              <Pager page={page} pages={revisions.data.pagination.pages} total={revisions.data.pagination.total} onPage={setPage} />
            )}
          </div>
          {selected ? (
            <RevisionDetail
              key={selected.version}
              row={row}
              columns={columns}
              revision={selected}
              known={list}
              compare={compare}
              onCompare={setCompare}
              toDraft={toDraft}
              onRestored={(version) => {
                setRestored({ version, toDraft });
                // The restore is the newest version now: show the first page, where it is.
                setPage(1);
              }}
            />
          ) : (
            <p className="muted revision-hint">Choose a version to see what it changed and to restore it.</p>
          )}
        </div>
      )}
    </section>
  );
}
