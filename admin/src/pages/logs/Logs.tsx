import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useParams } from 'react-router';
import { useApiKeys } from '../../data/api-keys/queries.js';
import { fieldErrors } from '../../data/errors.js';
import { useLogs, type LogQuery } from '../../data/logs/queries.js';
import { Button, SelectInput, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, ListState, PageHeader, Pager } from '../../ui/feedback.js';
import { localToIso } from '../../ui/format.js';
import { LogRow } from './LogRow.js';
import './Logs.css';

type Method = NonNullable<LogQuery['method']>;

const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const ANY = 'any';
const PAGE_SIZE = 50;

interface Filters {
  method: string;
  status: string;
  apiKeyId: string;
  from: string;
  to: string;
  path: string;
  console: string;
}
const NO_FILTERS: Filters = { method: ANY, status: '', apiKeyId: ANY, from: '', to: '', path: '', console: ANY };

/** The filters the API takes (docs/logs-and-metrics.md#request-logs); empty ones are left out. */
function queryOf(filters: Filters): LogQuery {
  return {
    method: filters.method === ANY ? undefined : (filters.method as Method),
    status: /^\d{3}$/.test(filters.status) ? Number(filters.status) : undefined,
    apiKeyId: filters.apiKeyId === ANY ? undefined : filters.apiKeyId,
    from: localToIso(filters.from),
    to: localToIso(filters.to),
    path: filters.path.trim() || undefined,
    console: filters.console === ANY ? undefined : (filters.console as LogQuery['console']),
  };
}

/** A project's request log, newest first, filtered and paged; a row opens to all of its fields. */
export function LogsPage() {
  const { projectId } = useParams();
  const pid = projectId!;
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const query = queryOf(filters);
  const logs = useLogs(pid, query, page, PAGE_SIZE);
  // Key names for the filter and the rows; project ADMINs only, so without it the ids are shown.
  const keys = useApiKeys(pid);
  const keyName = (id: string) => keys.data?.list.find((key) => key.id === id)?.name ?? id;
  const errors = fieldErrors(logs.error);
  const set = (field: keyof Filters) => (value: string) => setDraft((current) => ({ ...current, [field]: value }));
  const statusInvalid = draft.status !== '' && !/^[1-5]\d\d$/.test(draft.status);

  return (
    <>
      <PageHeader title="Request logs">
        <Button onPress={() => logs.refetch()}>Refresh</Button>
      </PageHeader>
      <Form
        className="toolbar"
        aria-label="Filter the logs"
        validationBehavior="aria"
        onSubmit={(event) => {
          event.preventDefault();
          if (statusInvalid) return;
          setFilters(draft);
          setPage(1);
        }}
      >
        <SelectInput label="Method" value={draft.method} onChange={set('method')} options={[{ id: ANY, label: 'Any' }, ...METHODS.map((m) => ({ id: m, label: m }))]} />
        <TextInput label="Status" value={draft.status} onChange={set('status')} placeholder="e.g. 404" error={statusInvalid ? 'an HTTP status, 100 to 599' : errors.status} />
        {keys.data && (
          <SelectInput label="API key" value={draft.apiKeyId} onChange={set('apiKeyId')} options={[{ id: ANY, label: 'Any' }, ...keys.data.list.map((key) => ({ id: key.id, label: key.name }))]} />
        )}
        <TextInput label="Path contains" value={draft.path} onChange={set('path')} placeholder="e.g. /contents" error={errors.path} />
        <SelectInput
          label="Console calls"
          value={draft.console}
          onChange={set('console')}
          options={[
            { id: ANY, label: 'Shown' },
            { id: 'exclude', label: 'Hidden' },
            { id: 'only', label: 'Only these' },
          ]}
        />
        <TextInput label="From" type="datetime-local" value={draft.from} onChange={set('from')} error={errors.from} />
        <TextInput label="To" type="datetime-local" value={draft.to} onChange={set('to')} error={errors.to} />
        <Button type="submit" variant="primary">
          Apply filters
        </Button>
        <Button
          onPress={() => {
            setDraft(NO_FILTERS);
            setFilters(NO_FILTERS);
            setPage(1);
          }}
        >
          Clear
        </Button>
      </Form>
      {Object.keys(errors).length === 0 && <ErrorBanner error={logs.error} />}
      <ListState pending={logs.isPending} items={logs.data?.list ?? []} empty="No request matches. Requests appear here a moment after they are made.">
        {logs.data && (
          <>
            <DataTable label="Requests" columns={[<span className="visually-hidden">Details</span>, 'Time', 'Method', 'Path', 'Status', 'Duration', 'Credential']}>
              {logs.data.list.map((entry) => (
                <LogRow key={entry.id} entry={entry} keyName={keyName} />
              ))}
            </DataTable>
            {/* Uncounted (a path or console filter): the last page is the one without a next. */}
            <Pager page={page} pages={logs.data.pagination.pages ?? (logs.data.pagination.hasNext ? null : page)} total={logs.data.pagination.total} onPage={setPage} />
          </>
        )}
      </ListState>
    </>
  );
}
