import { Migration } from '@mikro-orm/migrations';

/**
 * Categories, variables, translations and files (issue #5). File bytes live outside the
 * `file` row: in the local directory, or in `file_blob`/`file_chunk` (STORAGE_DRIVER=postgres).
 */
export class Migration20261122050000_resources extends Migration {
  override name = 'Migration20261122050000_resources';

  override up(): void {
    this.addSql(`
      create table category (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        name text not null,
        slug text not null,
        description text not null default '',
        parent_id uuid null references category (id) on delete set null,
        created_at timestamptz not null
      );
      create unique index category_slug_key on category (project_id, slug);
      create index category_project_idx on category (project_id, created_at, id);
      create index category_parent_idx on category (project_id, parent_id, created_at, id);

      create table variable (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        key text not null,
        value jsonb null,
        description text not null default '',
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index variable_key on variable (project_id, key);
      create index variable_project_idx on variable (project_id, created_at, id);

      create table translation (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        key text not null,
        locale text not null,
        value text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index translation_key_locale on translation (project_id, key, locale);
      create index translation_project_idx on translation (project_id, created_at, id);
      create index translation_locale_idx on translation (project_id, locale, created_at, id);

      create table file (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        name text not null,
        mime_type text not null,
        size bigint not null,
        sha256 text not null,
        -- Where the bytes are: the driver that wrote them and its key (drivers can be switched).
        storage_driver text not null check (storage_driver in ('local', 'postgres')),
        storage_key text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index file_project_idx on file (project_id, created_at, id);

      -- STORAGE_DRIVER=postgres. A blob is staged (committed = false) while its chunks stream in,
      -- and committed in the transaction that writes its file row; staged blobs that outlive
      -- their request (a crashed process) are swept.
      create table file_blob (
        id uuid primary key,
        project_id uuid not null references project (id) on delete cascade,
        committed boolean not null default false,
        created_at timestamptz not null default now()
      );
      create index file_blob_project_idx on file_blob (project_id);
      create index file_blob_staged_idx on file_blob (created_at) where not committed;

      create table file_chunk (
        blob_id uuid not null references file_blob (id) on delete cascade,
        seq integer not null,
        data bytea not null,
        primary key (blob_id, seq)
      );
      -- Uncompressed out-of-line storage: substring() (range requests) then reads only the
      -- slices it needs, and most uploads (images, archives) do not compress anyway.
      alter table file_chunk alter column data set storage external;
    `);
  }
}
