import { ListBox, ListBoxItem, type Selection } from 'react-aria-components';
import type { Revision } from '../../data/revisions/queries.js';
import { actionLabel, actorLabel, formatWhen, statusBadge, statusLabel, type ActorNames } from './summary.js';

/**
 * A page of a row's revisions, newest first, one selectable line each (arrow keys move, Enter or
 * Space selects): the version, what was done, the status it left, who and when.
 */
export function RevisionList({ revisions, selected, onSelect, names }: { revisions: Revision[]; selected: number | null; onSelect(revision: Revision): void; names: ActorNames }) {
  const choose = (keys: Selection) => {
    if (keys === 'all') return;
    const version = Number([...keys][0]);
    const revision = revisions.find((r) => r.version === version);
    if (revision) onSelect(revision);
  };
  return (
    <ListBox
      aria-label="Versions"
      className="revision-list"
      items={revisions}
      selectionMode="single"
      disallowEmptySelection
      selectedKeys={selected === null ? [] : [selected]}
      onSelectionChange={choose}
    >
      {(revision) => {
        const who = actorLabel(revision.actor, names);
        const when = formatWhen(revision.createdAt);
        // The spaces and the colon make the option's accessible name (its text) read as a sentence.
        return (
          <ListBoxItem id={revision.version} className="revision-item" textValue={`Version ${revision.version}: ${actionLabel(revision.action)}`}>
            <span className="revision-item-head">
              <strong>Version {revision.version}:</strong> <span>{actionLabel(revision.action)}</span>{' '}
              <span className={statusBadge(revision.status)}>{statusLabel(revision.status)}</span>
            </span>{' '}
            <span className="revision-item-meta">
              by {who} · <time dateTime={revision.createdAt}>{when}</time>
            </span>
          </ListBoxItem>
        );
      }}
    </ListBox>
  );
}
