import { Migration } from '@mikro-orm/migrations';

/** Project API keys and the shared rate-limit buckets (issue #3). */
export class Migration20261122010000_api_keys extends Migration {
  override name = 'Migration20261122010000_api_keys';

  override up(): void {
    this.addSql(`
      create table api_key (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        name text not null,
        permission text not null check (permission in ('read', 'read_write')),
        allowed_hosts text[] not null default '{}',
        active boolean not null default true,
        expires_at timestamptz null,
        key_hash bytea not null,
        prefix text not null,
        -- After a rotation the old value keeps working until previous_expires_at.
        previous_key_hash bytea null,
        previous_expires_at timestamptz null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        last_used_at timestamptz null
      );
      create unique index api_key_hash_key on api_key (key_hash);
      create unique index api_key_previous_hash_key on api_key (previous_key_hash) where previous_key_hash is not null;
      create index api_key_project_idx on api_key (project_id, created_at, id);

      -- Token buckets shared by every API process (docs/concepts.md#rate-limits). Unlogged: losing them in a crash
      -- only refills the buckets, and it keeps the WAL out of the request path.
      create unlogged table rate_bucket (
        key text primary key,
        tokens double precision not null,
        granted integer not null default 0,
        updated_at timestamptz not null
      );
    `);
  }
}
