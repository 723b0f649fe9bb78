/** Dates and sizes as the ops pages show them: in the browser's locale and time zone. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const precise = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });

export const when = (iso: string | null | undefined): string => (iso ? dateTime.format(new Date(iso)) : '—');
export const whenPrecise = (iso: string): string => precise.format(new Date(iso));

/** A `datetime-local` field's value (local time, no zone) as an ISO instant; '' stays undefined. */
export function localToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An ISO instant as a `datetime-local` field's value, in local time. */
export function isoToLocal(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
