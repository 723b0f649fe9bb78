import { Migration } from '@mikro-orm/migrations';

/** Webhooks, the events queued for each of them, and every delivery attempt (issue #6, docs/webhooks.md). */
export class Migration20261122060000_webhooks extends Migration {
  override name = 'Migration20261122060000_webhooks';

  override up(): void {
    this.addSql(`
      create table webhook (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        name text not null,
        url text not null,
        -- The event types of docs/webhooks.md, or '*' for all.
        events text[] not null,
        -- Narrows contents events to these tables; empty = every table.
        table_ids uuid[] not null default '{}',
        active boolean not null default true,
        -- Stored as given (whsec_...): it has to sign. Only the create response ever shows it.
        secret text not null,
        -- After a rotation deliveries carry a second signature until previous_secret_until.
        previous_secret text null,
        previous_secret_until timestamptz null,
        disabled_reason text null,
        -- Events in a row that exhausted their retries; the 5th disables the webhook.
        consecutive_failures integer not null default 0,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index webhook_project_idx on webhook (project_id, created_at, id);

      -- One event as queued for one webhook: the exact body that is signed and sent (so every
      -- attempt, automatic or manual, sends the same bytes) and where its delivery stands.
      create table webhook_event (
        webhook_id uuid not null references webhook (id) on delete cascade,
        event_id uuid not null,
        type text not null,
        body text not null,
        state text not null default 'pending' check (state in ('pending', 'delivered', 'exhausted', 'cancelled')),
        -- Attempts recorded so far (automatic and manual): the next one is attempts + 1.
        attempts integer not null default 0,
        -- The automatic attempt the queued delivery job carries; an older job finding a larger
        -- number here was already handled (a job retried after its work committed).
        next_attempt integer not null default 1,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (webhook_id, event_id)
      );
      -- Retention sweeps by age; disabling a webhook cancels its pending events.
      create index webhook_event_created_idx on webhook_event (created_at);
      create index webhook_event_pending_idx on webhook_event (webhook_id) where state = 'pending';

      create table webhook_delivery (
        id uuid primary key,
        webhook_id uuid not null references webhook (id) on delete cascade,
        event_id uuid not null,
        type text not null,
        attempt integer not null,
        status_code integer null,
        duration_ms integer not null,
        error text null,
        created_at timestamptz not null,
        -- Attempts go with their event when retention removes it.
        foreign key (webhook_id, event_id) references webhook_event (webhook_id, event_id) on delete cascade
      );
      create index webhook_delivery_list_idx on webhook_delivery (webhook_id, created_at desc, id desc);
      create index webhook_delivery_event_idx on webhook_delivery (webhook_id, event_id);
    `);
  }
}
