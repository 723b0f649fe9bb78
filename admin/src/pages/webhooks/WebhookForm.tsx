import { useState } from 'react';
import { Form } from 'react-aria-components';
import { TabulaError, type EventType, type RouterOutputs } from 'tabula/client';
import { errorText, fieldErrors } from '../../data/errors.js';
import { Button, CheckboxInput, TextInput } from '../../ui/controls.js';

export type Webhook = RouterOutputs['webhooks']['list']['list'][number];
export type Delivery = RouterOutputs['webhooks']['deliveries']['list'][number];
type Table = RouterOutputs['tables']['list']['list'][number];

/** The event types, in the order of docs/webhooks.md; the check below fails the build when the server adds one. */
export const EVENT_TYPES = [
  'contents.created',
  'contents.updated',
  'contents.deleted',
  'contents.published',
  'contents.unpublished',
  'contents.imported',
  'files.created',
  'files.updated',
  'files.deleted',
  'tables.created',
  'tables.updated',
  'tables.deleted',
  'release.published',
] as const satisfies readonly EventType[];
const everyEventListed: Exclude<EventType, (typeof EVENT_TYPES)[number]> extends never ? true : false = true;
void everyEventListed;

export type WebhookEvent = (typeof EVENT_TYPES)[number] | '*';

export interface WebhookValues {
  name?: string;
  url: string;
  events: WebhookEvent[];
  tableIds: string[];
  active: boolean;
}

/** A webhook's settings: its URL, `*` or chosen events, and the tables that narrow contents events. */
export function WebhookForm({ initial, tables, submitLabel, error, isPending, onSubmit, onCancel }: { initial?: Webhook; tables: Table[]; submitLabel: string; error: unknown; isPending: boolean; onSubmit(values: WebhookValues): void; onCancel(): void }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [url, setUrl] = useState(initial?.url ?? '');
  const [events, setEvents] = useState<WebhookEvent[]>((initial?.events as WebhookEvent[] | undefined) ?? ['*']);
  const [tableIds, setTableIds] = useState<string[]>(initial?.tableIds ?? []);
  const [active, setActive] = useState(initial?.active ?? true);
  const errors = fieldErrors(error);
  const all = events.includes('*');
  const toggle = <T extends string>(list: T[], value: T, on: boolean) => (on ? [...list, value] : list.filter((item) => item !== value));
  // A malformed URL is a 400 naming `url` (where it points is a 422 detail at `url`).
  const badRequest = error instanceof TabulaError && error.code === 'BAD_REQUEST' ? error.message : '';
  const fieldError = (prefix: string) =>
    Object.entries(errors).find(([field]) => field === prefix || field.startsWith(`${prefix}.`))?.[1] ?? (new RegExp(`\\b${prefix}\\b`).test(badRequest) ? badRequest : undefined);
  const urlError = fieldError('url');
  return (
    <Form
      // Server errors mark fields invalid; natively that would block the corrected form's next submit.
      validationBehavior="aria"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit({ name: name.trim() || undefined, url, events, tableIds, active });
      }}
    >
      <TextInput label="URL" type="url" value={url} onChange={setUrl} error={urlError} isRequired autoFocus description="Receives a signed POST per event (Standard Webhooks)." />
      <TextInput label="Name" value={name} onChange={setName} error={errors.name} description="Optional: the URL's host when empty." />
      <fieldset className="ops-events">
        <legend>Events</legend>
        <CheckboxInput label="All events (*)" value={all} onChange={(on) => setEvents(on ? ['*'] : [])} />
        {EVENT_TYPES.map((type) => (
          <CheckboxInput key={type} label={type} value={all || events.includes(type)} isDisabled={all} onChange={(on) => setEvents((list) => toggle(list, type, on))} />
        ))}
      </fieldset>
      {fieldError('events') && (
        <p role="alert" className="field-error">
          Events: {fieldError('events')}
        </p>
      )}
      {tables.length > 0 && (
        <fieldset className="ops-events">
          <legend>Tables (contents events)</legend>
          {tables.map((table) => (
            <CheckboxInput key={table.id} label={table.name} value={tableIds.includes(table.id)} onChange={(on) => setTableIds((list) => toggle(list, table.id, on))} />
          ))}
        </fieldset>
      )}
      <p className="field-description">No table chosen: contents events of every table.</p>
      <CheckboxInput label="Active" value={active} onChange={setActive} />
      {error !== null && error !== undefined && Object.keys(errors).length === 0 && !urlError && !fieldError('events') && (
        <p role="alert" className="banner banner-error">
          {errorText(error)}
        </p>
      )}
      <div className="dialog-actions">
        <Button onPress={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" isDisabled={isPending || events.length === 0}>
          {submitLabel}
        </Button>
      </div>
    </Form>
  );
}
