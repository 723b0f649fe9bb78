import { CheckboxInput } from '../../ui/controls.js';
import { DataTable } from '../../ui/DataTable.js';
import { actionOf, changeKey, differences, subjectOf, type Change } from './plan.js';

/**
 * A plan's changes, one a row; a destructive one is flagged with the rows it loses data of, and
 * carries the box that confirms it by its name.
 */
export function PlanTable({ changes, confirmed, onConfirm }: { changes: Change[]; confirmed: Set<string>; onConfirm(key: string, value: boolean): void }) {
  return (
    <DataTable className="schema-plan" label="Plan" columns={['Change', 'Of', 'Details', 'Data']}>
      {changes.map((change, index) => {
        const key = changeKey(change, index);
        const subject = subjectOf(change);
        return (
          <tr key={key} className={change.destructive ? 'schema-destructive' : undefined}>
            <td>{actionOf(change)}</td>
            <td>
              <code>{subject}</code>
            </td>
            <td>
              {differences(change).length > 0 && (
                <ul className="schema-diffs">
                  {differences(change).map((d) => (
                    <li key={d.key}>
                      <code>{d.key}</code>: <code>{d.from}</code> → <code>{d.to}</code>
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td>
              {change.destructive ? (
                <>
                  <span className="badge badge-error">Destructive{change.rows !== undefined ? `: ${change.rows} ${change.rows === 1 ? 'row' : 'rows'}` : ''}</span>
                  <CheckboxInput label={`I accept to ${actionOf(change).toLowerCase()} ${subject}`} value={confirmed.has(key)} onChange={(value) => onConfirm(key, value)} />
                </>
              ) : (
                <span className="muted">Keeps data</span>
              )}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
