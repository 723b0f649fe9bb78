import { useColumns } from '../../data/columns/queries.js';
import { useChosenRows } from '../../data/contents/queries.js';
import { useProject } from '../../data/projects/context.js';
import { Button } from '../../ui/controls.js';
import { rowLabel, titleColumn } from '../editor/values.js';
import { isReferenceField, operatorLabel, type BuilderOp, type ListField } from './fields.js';
import { describeCondition, type Condition } from './filters.js';

/** An active condition as a removable chip; a reference condition names its row, not its id. */
export function FilterChip({ condition, fields, onRemove }: { condition: Condition; fields: ListField[]; onRemove(): void }) {
  const field = fields.find((f) => f.id === condition.i);
  const picked = field && isReferenceField(field) && typeof condition.v === 'string' && (condition.w === 'eq' || condition.w === 'neq') ? { field, id: condition.v } : null;
  const name = useRowName(picked?.field, picked?.id);
  const words = picked ? `${picked.field.label} ${operatorLabel(condition.w as BuilderOp, picked.field)} ${name}` : describeCondition(condition, fields);
  return (
    <li className="list-chip">
      <span>{words}</span>
      <Button variant="ghost" aria-label={`Remove filter: ${words}`} onPress={onRemove}>
        ✕
      </Button>
    </li>
  );
}

/** A referenced row's name in the project's default locale (as the reference picker shows it). */
function useRowName(field: ListField | undefined, id: string | undefined): string {
  const project = useProject();
  const tableId = field?.column ? String(field.column.settings.table) : '';
  const columns = useColumns(project.id, tableId, { enabled: !!field });
  const title = columns.data ? titleColumn(columns.data) : undefined;
  const fields = [...new Set([title?.name, 'slug'].filter((f): f is string => !!f))].join(',');
  const rows = useChosenRows(project.id, tableId, id ? [id] : [], { fields, locale: project.defaultLocale }, { enabled: !!field && !!id && columns.data !== undefined });
  if (!field || !id) return '';
  const row = rows.data?.list.find((r) => r.id === id);
  return row ? rowLabel(row, title, project.defaultLocale) : rows.isFetching || !columns.data ? '…' : 'a missing row';
}
