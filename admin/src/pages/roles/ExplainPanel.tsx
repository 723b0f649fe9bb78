import { useState } from 'react';
import { useParams } from 'react-router';
import { useApiKeys } from '../../data/api-keys/queries.js';
import { useProjectMembers } from '../../data/members/queries.js';
import { useExplain, type ExplainInput, type Role } from '../../data/roles/queries.js';
import type { Table } from '../../data/tables/queries.js';
import { SelectInput, TextInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { ErrorBanner, Loading } from '../../ui/feedback.js';
import { ACTIONS } from './RuleForm.js';

/**
 * GET …/access/explain as a person reads it (docs/roles.md#explain): pick a table (and a row),
 * and a role, an API key or a member; each action says whether it is allowed and by which rules,
 * and the columns read and written are listed.
 */
export function ExplainPanel({ projectId, roles, tables }: { projectId: string; roles: Role[]; tables: Table[] }) {
  const { workspaceId } = useParams();
  const keys = useApiKeys(projectId);
  const members = useProjectMembers(workspaceId!, projectId);
  const [table, setTable] = useState<string | null>(null);
  const [subject, setSubject] = useState<string | null>(null);
  const [row, setRow] = useState('');
  const subjects = [
    ...roles.map((r) => ({ id: `role:${r.id}`, label: `Role: ${r.name}` })),
    ...(keys.data?.list ?? []).map((k) => ({ id: `key:${k.id}`, label: `API key: ${k.name}` })),
    ...(members.data?.list ?? []).map((m) => ({ id: `member:${m.accountId}`, label: `Member: ${m.email}` })),
  ];
  const chosenTable = table ?? tables[0]?.key ?? null;
  const input = ((): ExplainInput | null => {
    if (!chosenTable || !subject) return null;
    const [kind, id] = [subject.slice(0, subject.indexOf(':')), subject.slice(subject.indexOf(':') + 1)];
    const who = kind === 'role' ? { roleId: id } : kind === 'key' ? { apiKeyId: id } : { accountId: id };
    return { table: chosenTable, ...who, ...(row.trim() ? { contentsId: row.trim() } : {}) };
  })();
  const explain = useExplain(projectId, input);
  const ruleNumbers = (rules: number[]) => (rules.length === 0 ? '' : `by rule${rules.length > 1 ? 's' : ''} ${rules.map((i) => i + 1).join(', ')}`);
  return (
    <section aria-labelledby="explain-heading" className="explain">
      <h2 id="explain-heading">What may they do?</h2>
      {tables.length === 0 ? (
        <p className="muted">The project has no table yet.</p>
      ) : (
        <div className="inline-form">
          <SelectInput label="Who" placeholder="Choose a role, key or member" value={subject} options={subjects} onChange={setSubject} />
          <SelectInput label="On the table" value={chosenTable} options={tables.map((t) => ({ id: t.key, label: t.name }))} onChange={setTable} />
          <TextInput label="Row (id or slug, optional)" value={row} onChange={setRow} />
        </div>
      )}
      <ErrorBanner error={explain.error} />
      {input && explain.isPending && <Loading />}
      {explain.data && (
        <div className="explain-result" aria-live="polite">
          <DataTable className="ops-table" label="Allowed actions" columns={['Action', 'Allowed']}>
            {ACTIONS.map((action) => {
              const verdict = explain.data.actions[action];
              return (
                <tr key={action}>
                  <th scope="row">{action}</th>
                  <td>
                    <span className={`badge ${verdict.allowed ? 'badge-published' : 'badge-error'}`}>{verdict.allowed ? 'Allowed' : 'Not allowed'}</span> {ruleNumbers(verdict.rules)}
                  </td>
                </tr>
              );
            })}
          </DataTable>
          <p>
            <strong>Columns read:</strong> {explain.data.fields.read.join(', ') || 'none'}
          </p>
          <p>
            <strong>Columns written:</strong> {explain.data.fields.write.join(', ') || 'none'}
          </p>
        </div>
      )}
    </section>
  );
}
