import { useEffect, useState } from 'react';
import { Form } from 'react-aria-components';
import { exportContents, type ContentsFormat, type ExportQuery } from 'tabula/client';
import { Button, CheckboxInput, SelectInput } from '../../ui/controls.js';
import { ErrorBanner } from '../../ui/feedback.js';
import { bytes } from '../../ui/format.js';
import { useFileTransport } from '../files/transport.js';

type Run = { state: 'receiving'; bytes: number; lines: number } | { state: 'done'; url: string; name: string; bytes: number; rows: number } | { state: 'failed'; error: unknown };

/**
 * Export of the rows the list shows (docs/import-export.md#export): the list's filter, search
 * and sort come with the address, the file is received with its progress and saved.
 */
export function ExportPanel({ projectId, tableId, tableKey, query, described }: { projectId: string; tableId: string; tableKey: string; query: Omit<ExportQuery, 'format'>; described: string }) {
  const transport = useFileTransport();
  const [format, setFormat] = useState<ContentsFormat>('csv');
  const [forImport, setForImport] = useState(false);
  const [run, setRun] = useState<Run | null>(null);
  const doneUrl = run?.state === 'done' ? run.url : null;
  // The file stays downloadable until the next export or the page is left.
  useEffect(() => () => void (doneUrl && URL.revokeObjectURL(doneUrl)), [doneUrl]);

  const start = async () => {
    setRun({ state: 'receiving', bytes: 0, lines: 0 });
    try {
      const blob = await exportContents(transport, projectId, tableId, { ...query, format, ...(format === 'csv' && forImport ? { escapeFormulas: false } : {}) }, (received) =>
        setRun({ state: 'receiving', ...received }),
      );
      const text = await blob.text();
      const lines = text.split('\n').filter((line) => line !== '').length;
      const url = URL.createObjectURL(blob);
      const name = `${tableKey}.${format}`;
      setRun({ state: 'done', url, name, bytes: blob.size, rows: format === 'csv' ? Math.max(0, lines - 1) : lines });
      // Saved at once; the link below saves it again.
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
    } catch (error) {
      setRun({ state: 'failed', error });
    }
  };

  return (
    <section className="card io-panel" aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p>{described}</p>
      <Form
        className="toolbar"
        aria-label="Export the rows"
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <SelectInput
          label="Format"
          value={format}
          onChange={(value) => setFormat(value as ContentsFormat)}
          options={[
            { id: 'csv', label: 'CSV' },
            { id: 'ndjson', label: 'NDJSON' },
          ]}
        />
        {format === 'csv' && <CheckboxInput label="For a re-import (formulas not escaped)" value={forImport} onChange={setForImport} />}
        <Button type="submit" variant="primary" isDisabled={run?.state === 'receiving'}>
          {run?.state === 'receiving' ? 'Exporting…' : 'Export'}
        </Button>
      </Form>
      {run?.state === 'receiving' && (
        <div className="io-progress">
          {/* The export streams without a known length: an indeterminate bar and the counts so far. */}
          <progress aria-label="Export progress" />
          <span role="status">
            Received {bytes(run.bytes)}, {run.lines} lines
          </span>
        </div>
      )}
      {run?.state === 'done' && (
        <p role="status" className="banner banner-ok">
          Exported {run.rows} {run.rows === 1 ? 'row' : 'rows'} ({bytes(run.bytes)}).{' '}
          <a href={run.url} download={run.name}>
            Save {run.name} again
          </a>
        </p>
      )}
      {run?.state === 'failed' && <ErrorBanner error={run.error} />}
    </section>
  );
}
