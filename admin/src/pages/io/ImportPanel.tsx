import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FileTrigger, Form } from 'react-aria-components';
import { FileCallError, importContents, type ContentsFormat } from 'tabula/client';
import { contentsKeys } from '../../data/contents/keys.js';
import type { Column } from '../../data/columns/queries.js';
import { useProject } from '../../data/projects/context.js';
import { Button, CheckboxInput, SelectInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner } from '../../ui/feedback.js';
import { bytes } from '../../ui/format.js';
import { useFileTransport } from '../files/transport.js';
import { applyMapping, defaultMapping, formatOf, headerOf, lineOf, SKIP, targetsOf } from './mapping.js';

type ErrorDetail = NonNullable<FileCallError['details']>[number];

interface Chosen {
  name: string;
  format: ContentsFormat;
  text: string;
  header: string[];
}

type Run = { state: 'sending'; loaded: number; total: number } | { state: 'done'; imported: number } | { state: 'failed'; error: unknown; lines: ErrorDetail[] };

/**
 * Import into one table (docs/import-export.md#import): a CSV or NDJSON file dropped or picked,
 * its header mapped to the columns, sent with the upload's progress; all or nothing, so a 422
 * lists the lines that failed and nothing is written.
 */
export function ImportPanel({ projectId, tableId, columns }: { projectId: string; tableId: string; columns: Column[] }) {
  const project = useProject();
  const transport = useFileTransport();
  const queries = useQueryClient();
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [upsert, setUpsert] = useState(false);
  const [run, setRun] = useState<Run | null>(null);
  const [over, setOver] = useState(false);
  const targets = chosen ? targetsOf(chosen.format, columns, project.locales) : [];

  const choose = async (file: File) => {
    const format = formatOf(file.name) ?? (file.type === 'text/csv' ? 'csv' : null);
    setRun(null);
    if (!format) {
      setChosen(null);
      setProblem(`${file.name}: choose a .csv, .ndjson or .jsonl file`);
      return;
    }
    const text = await file.text();
    const header = headerOf(format, text);
    setProblem(null);
    setChosen({ name: file.name, format, text, header });
    setMapping(defaultMapping(header, targetsOf(format, columns, project.locales)));
  };

  const start = async () => {
    if (!chosen) return;
    const body = new Blob([applyMapping(chosen.format, chosen.text, mapping)], { type: chosen.format === 'csv' ? 'text/csv' : 'application/x-ndjson' });
    setRun({ state: 'sending', loaded: 0, total: body.size });
    try {
      const { imported } = await importContents(transport, projectId, tableId, body, {
        format: chosen.format,
        mode: upsert ? 'upsert' : 'create',
        onProgress: (loaded, total) => setRun({ state: 'sending', loaded, total }),
      });
      setRun({ state: 'done', imported });
      await queries.invalidateQueries({ queryKey: contentsKeys.table(projectId, tableId) });
    } catch (error) {
      const lines = error instanceof FileCallError && (error.status === 422 || error.status === 403) ? (error.details ?? []) : [];
      setRun({ state: 'failed', error, lines });
    }
  };

  const sending = run?.state === 'sending';
  return (
    <section className="card io-panel" aria-labelledby="import-heading">
      <h2 id="import-heading">Import</h2>
      {/*
        The drop target reads the dropped File list itself: a file dropped from the system comes
        as `dataTransfer.files`. The button beside it is the keyboard's way to the same choice.
      */}
      <div
        className="io-drop"
        data-drop-target={over || undefined}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          const file = event.dataTransfer.files[0];
          if (file) void choose(file);
        }}
      >
        <span>Drop a CSV or NDJSON file here, or</span>
        <FileTrigger acceptedFileTypes={['.csv', '.ndjson', '.jsonl', 'text/csv', 'application/x-ndjson']} onSelect={(files) => files?.[0] && void choose(files[0])}>
          <Button>Choose a file</Button>
        </FileTrigger>
      </div>
      {problem && (
        <p role="alert" className="banner banner-error">
          {problem}
        </p>
      )}
      {chosen && (
        <Form
          aria-label="Import the file"
          onSubmit={(event) => {
            event.preventDefault();
            void start();
          }}
        >
          <p>
            <strong>{chosen.name}</strong> · {chosen.format.toUpperCase()} · {bytes(new Blob([chosen.text]).size)}
          </p>
          {chosen.header.length === 0 ? (
            <p className="muted">No header found: the file is sent as it is.</p>
          ) : (
            <DataTable className="io-mapping" label="Header mapping" columns={['In the file', 'Goes to']}>
              {chosen.header.map((name) => (
                <tr key={name}>
                  <td>
                    <code>{name}</code>
                  </td>
                  <td>
                    <SelectInput
                      label={`Column for ${name}`}
                      value={mapping[name] ?? SKIP}
                      onChange={(to) => setMapping((current) => ({ ...current, [name]: to }))}
                      options={[{ id: SKIP, label: 'Leave out' }, ...targets]}
                    />
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
          <CheckboxInput label="Update rows that match by id or slug (upsert)" value={upsert} onChange={setUpsert} />
          <div className="toolbar">
            <Button type="submit" variant="primary" isDisabled={sending}>
              {sending ? 'Importing…' : 'Import'}
            </Button>
          </div>
        </Form>
      )}
      <ImportOutcome run={run} />
    </section>
  );
}

/** The API names the first 100 offending lines: past that, the count is a floor. */
const NAMED = 100;
function failedLines(details: ErrorDetail[]): string {
  const lines = new Set(details.map((d) => lineOf(d.field).line)).size;
  return lines >= NAMED ? `${NAMED} lines or more fail, the first ${NAMED} are listed` : `${lines} ${lines === 1 ? 'line fails' : 'lines fail'}`;
}

function ImportOutcome({ run }: { run: Run | null }) {
  if (!run) return null;
  if (run.state === 'sending') {
    const sent = run.loaded >= run.total;
    return (
      <div className="io-progress">
        <progress max={run.total || 1} value={run.loaded} aria-label="Import progress" />
        <span role="status">{sent ? 'Sent; the rows are being checked and written…' : `Sending ${bytes(run.loaded)} of ${bytes(run.total)}`}</span>
      </div>
    );
  }
  if (run.state === 'done') {
    return (
      <p role="status" className="banner banner-ok">
        Imported {run.imported} {run.imported === 1 ? 'row' : 'rows'}.
      </p>
    );
  }
  return (
    <>
      <ErrorBanner error={run.lines.length > 0 ? new Error(`Nothing was imported: ${failedLines(run.lines)}.`) : run.error} />
      {run.lines.length > 0 && (
        <DataTable label="Lines that failed" columns={['Line', 'Field', 'Message']}>
          {run.lines.map((detail, index) => {
            const { line, field } = lineOf(detail.field);
            return (
              <tr key={index}>
                <td>{line ?? '—'}</td>
                <td>
                  <code>{field || '—'}</code>
                </td>
                <td>{detail.message}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </>
  );
}
