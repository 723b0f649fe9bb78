import { Fragment, useState } from 'react';
import type { RouterOutputs } from 'tabula/client';
import { Button } from '../../ui/controls.js';
import { whenPrecise } from '../../ui/format.js';

export type LogEntry = RouterOutputs['logs']['list']['list'][number];

/** A long path (a tRPC batch with its input) is cut in the list; the details show all of it. */
const PATH_SHOWN = 100;
const shortPath = (path: string) => (path.length > PATH_SHOWN ? `${path.slice(0, PATH_SHOWN)}…` : path);

const statusBadge = (status: number) => (status >= 500 ? 'badge-error' : status >= 400 ? 'badge-scheduled' : 'badge-published');

/** One request; its button opens a row below with every field of the entry. */
export function LogRow({ entry, keyName }: { entry: LogEntry; keyName(id: string): string }) {
  const [open, setOpen] = useState(false);
  const detailsId = `log-${entry.id}`;
  return (
    <Fragment>
      <tr>
        <td>
          <Button variant="ghost" aria-expanded={open} aria-controls={open ? detailsId : undefined} aria-label={`Details of ${entry.method} ${entry.path} at ${whenPrecise(entry.createdAt)}`} onPress={() => setOpen(!open)}>
            <span aria-hidden="true">{open ? '▾' : '▸'}</span>
          </Button>
        </td>
        <td className="ops-nowrap">{whenPrecise(entry.createdAt)}</td>
        <td>
          <code>{entry.method}</code>
        </td>
        <td className="ops-path">
          <code title={entry.path.length > PATH_SHOWN ? entry.path : undefined}>{shortPath(entry.path)}</code>
        </td>
        <td>
          <span className={`badge ${statusBadge(entry.status)}`}>{entry.status}</span>
        </td>
        <td className="ops-nowrap">{entry.durationMs} ms</td>
        <td>
          {entry.apiKeyId ? keyName(entry.apiKeyId) : entry.accountId ? 'Account token' : <span className="muted">None</span>}
          {entry.console && (
            <>
              {' '}
              <span className="badge badge-draft" title="A call of this console">
                Console
              </span>
            </>
          )}
        </td>
      </tr>
      {open && (
        <tr id={detailsId} className="ops-details">
          <td colSpan={7}>
            <dl>
              <dt>Request id</dt>
              <dd>
                <code>{entry.requestId}</code>
              </dd>
              <dt>Time</dt>
              <dd>{entry.createdAt}</dd>
              <dt>Path</dt>
              <dd>
                <code>{entry.path}</code>
              </dd>
              <dt>API key</dt>
              <dd>{entry.apiKeyId ? `${keyName(entry.apiKeyId)} (${entry.apiKeyId})` : '—'}</dd>
              <dt>Account</dt>
              <dd>{entry.accountId ?? '—'}</dd>
              <dt>Client</dt>
              <dd>{entry.console ? 'The admin console' : '—'}</dd>
              <dt>IP address</dt>
              <dd>{entry.ip ?? '—'}</dd>
              <dt>User agent</dt>
              <dd>{entry.userAgent ?? '—'}</dd>
              <dt>Log entry id</dt>
              <dd>
                <code>{entry.id}</code>
              </dd>
            </dl>
          </td>
        </tr>
      )}
    </Fragment>
  );
}
