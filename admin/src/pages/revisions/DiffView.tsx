import { Button, Disclosure, DisclosurePanel, Heading } from 'react-aria-components';
import type { ColumnDiff, RowDiff, Segment, ValueDiff } from './diff.js';
import { statusLabel } from './summary.js';

/**
 * A row diff as people read it: each changed column under its label, one line per locale, the
 * old side with what went struck in red and the new side with what came in green; the columns
 * that did not change folded away under one disclosure.
 */
export function DiffView({ diff, beforeLabel, afterLabel, showStatus }: { diff: RowDiff; beforeLabel: string; afterLabel: string; showStatus: boolean }) {
  const changed = diff.columns.filter((column) => column.changed);
  const unchanged = diff.columns.filter((column) => !column.changed);
  return (
    <div className="revision-diff">
      {showStatus && diff.status.changed && (
        <p className="revision-status-change">
          Status:{' '}
          {diff.status.before && (
            <>
              <del className="diff-removed">{statusLabel(diff.status.before)}</del> →{' '}
            </>
          )}
          <ins className="diff-added">{statusLabel(diff.status.after)}</ins>
        </p>
      )}
      {changed.length === 0 ? (
        <p className="muted">No column differs.</p>
      ) : (
        <ul className="revision-changes" aria-label="Changed columns">
          {changed.map((column) => (
            <ChangedColumn key={column.name} column={column} beforeLabel={beforeLabel} afterLabel={afterLabel} />
          ))}
        </ul>
      )}
      {unchanged.length > 0 && (
        <Disclosure className="revision-unchanged">
          <Heading level={4} className="revision-unchanged-heading">
            <Button slot="trigger" className="btn btn-ghost">
              {unchanged.length === 1 ? '1 unchanged column' : `${unchanged.length} unchanged columns`}
            </Button>
          </Heading>
          <DisclosurePanel>
            <dl className="revision-unchanged-list">
              {unchanged.map((column) => (
                <div key={column.name}>
                  <dt>{column.label}</dt>
                  <dd>{column.values.length === 0 ? <Empty /> : column.values.map((value) => <UnchangedValue key={value.locale ?? ''} value={value} note={false} />)}</dd>
                </div>
              ))}
            </dl>
          </DisclosurePanel>
        </Disclosure>
      )}
    </div>
  );
}

function ChangedColumn({ column, beforeLabel, afterLabel }: { column: ColumnDiff; beforeLabel: string; afterLabel: string }) {
  return (
    <li className="revision-change">
      <h4>{column.label}</h4>
      {column.values.map((value) =>
        value.changed ? (
          <div key={value.locale ?? ''} className="revision-value">
            {value.locale && <span className="revision-locale">{value.locale}</span>}
            <dl className="revision-sides">
              <dt>{beforeLabel}</dt>
              <dd className="diff">{value.before.length === 0 ? <Empty /> : <Segments segments={value.before} />}</dd>
              <dt>{afterLabel}</dt>
              <dd className="diff">{value.after.length === 0 ? <Empty /> : <Segments segments={value.after} />}</dd>
            </dl>
          </div>
        ) : (
          <UnchangedValue key={value.locale ?? ''} value={value} note />
        ),
      )}
    </li>
  );
}

/** A value both sides share (an unchanged locale of a changed column, or an unchanged column). */
function UnchangedValue({ value, note }: { value: ValueDiff; note: boolean }) {
  return (
    <div className="revision-value">
      {value.locale && <span className="revision-locale">{value.locale}</span>}
      <span className="diff revision-same">
        <Segments segments={value.after} />
        {note && <span className="muted"> (unchanged)</span>}
      </span>
    </div>
  );
}

function Segments({ segments }: { segments: Segment[] }) {
  return segments.map((segment, index) =>
    segment.kind === 'removed' ? (
      <del key={index} className="diff-removed">
        {segment.text}
      </del>
    ) : segment.kind === 'added' ? (
      <ins key={index} className="diff-added">
        {segment.text}
      </ins>
    ) : (
      <span key={index}>{segment.text}</span>
    ),
  );
}

const Empty = () => <span className="muted">(empty)</span>;
