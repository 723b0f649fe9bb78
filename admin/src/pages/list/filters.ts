import { operatorLabel, takesList, type BuilderOp, type ListField } from './fields.js';

/** One condition as the API's `filter` takes it (docs/contents.md#list-queries): field, operator, value. */
export interface Condition {
  i: string;
  w: string;
  v: unknown;
}

/** The builder's condition → the API's: empty/present are `null` true/false; lists and ranges are arrays. */
export function toCondition(field: ListField, op: BuilderOp, value: string, upTo: string): Condition {
  if (op === 'empty' || op === 'present') return { i: field.id, w: 'null', v: op === 'empty' };
  if (op === 'between') return { i: field.id, w: op, v: [wireValue(field, value), wireValue(field, upTo)] };
  if (takesList(op)) {
    const items = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
    return { i: field.id, w: op, v: items.map((item) => wireValue(field, item)) };
  }
  return { i: field.id, w: op, v: wireValue(field, value) };
}

/**
 * Values go as the strings the API coerces to the field's type ("12", "true", "2026-01-01"),
 * except a datetime-local input's "2026-05-01T10:00", which has no offset: it is the person's
 * local time, sent as the instant it names.
 */
function wireValue(field: ListField, value: string): string {
  if (field.kind === 'datetime' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return new Date(value).toISOString();
  return value.trim();
}

/** `filter` from the address: the API's JSON array, or none when it is not one (a hand-edited address). */
export function parseConditions(filter: string | null): Condition[] {
  if (!filter) return [];
  try {
    const parsed: unknown = JSON.parse(filter);
    return Array.isArray(parsed) ? parsed.filter((c): c is Condition => typeof c === 'object' && c !== null && typeof c.i === 'string' && typeof c.w === 'string') : [];
  } catch {
    return [];
  }
}

const shown = (v: unknown): string => (Array.isArray(v) ? v.map(shown).join(', ') : typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) ? new Date(v).toLocaleString() : String(v));

/** A condition in words, for its chip: "Price at least 10", "Status is any of DRAFT, ARCHIVED". */
export function describeCondition(condition: Condition, fields: ListField[]): string {
  const field = fields.find((f) => f.id === condition.i) ?? { id: condition.i, label: condition.i, kind: 'text' as const, multiple: false };
  if (condition.w === 'null') return `${field.label} ${operatorLabel(condition.v === true || condition.v === 'true' ? 'empty' : 'present', field)}`;
  const op = condition.w as BuilderOp;
  if (op === 'between' && Array.isArray(condition.v)) return `${field.label} between ${shown(condition.v[0])} and ${shown(condition.v[1])}`;
  return `${field.label} ${operatorLabel(op, field)} ${shown(condition.v)}`;
}
