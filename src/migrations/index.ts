import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.js';
import { Migration20261122010000_api_keys } from './Migration20261122010000_api_keys.js';
import { Migration20261122020000_contents } from './Migration20261122020000_contents.js';
import { Migration20261122030000_count_versions } from './Migration20261122030000_count_versions.js';
import { Migration20261122040000_count_shards } from './Migration20261122040000_count_shards.js';
import { Migration20261122070000_event_outbox } from './Migration20261122070000_event_outbox.js';
import { Migration20261122080000_scheduled_index } from './Migration20261122080000_scheduled_index.js';
import { Migration20261122090000_request_logs } from './Migration20261122090000_request_logs.js';
import { Migration20261122100000_guarded_casts } from './Migration20261122100000_guarded_casts.js';
import { Migration20261122110000_log_segments } from './Migration20261122110000_log_segments.js';
import { Migration20261122050000_resources } from './Migration20261122050000_resources.js';
import { Migration20261122060000_webhooks } from './Migration20261122060000_webhooks.js';
import { Migration20261123020000_event_order } from './Migration20261123020000_event_order.js';
import { Migration20261125000000_text_keys } from './Migration20261125000000_text_keys.js';
import { Migration20261125010000_contents_changes } from './Migration20261125010000_contents_changes.js';
import { Migration20261125020000_search } from './Migration20261125020000_search.js';
import { Migration20261125030000_revisions } from './Migration20261125030000_revisions.js';
import { Migration20261125040000_drafts } from './Migration20261125040000_drafts.js';
import { Migration20261126000000_event_feed } from './Migration20261126000000_event_feed.js';
import { Migration20261126010000_s3_storage } from './Migration20261126010000_s3_storage.js';
import { Migration20261126020000_file_derivatives } from './Migration20261126020000_file_derivatives.js';
import { Migration20261127160000_rollup_streams } from './Migration20261127160000_rollup_streams.js';
import { Migration20261128000000_roles } from './Migration20261128000000_roles.js';
import { Migration20261129000000_role_grants } from './Migration20261129000000_role_grants.js';
import { Migration20261201000000_releases } from './Migration20261201000000_releases.js';
import { Migration20261202030000_shared_file_bytes } from './Migration20261202030000_shared_file_bytes.js';
import { Migration20261202040000_http_cache } from './Migration20261202040000_http_cache.js';
import { Migration20261202041500_http_cache_writes } from './Migration20261202041500_http_cache_writes.js';
import { Migration20261202070000_table_settings } from './Migration20261202070000_table_settings.js';
import { Migration20261203010000_cache_in_change_log } from './Migration20261203010000_cache_in_change_log.js';
import { Migration20261204000000_counters_without_waits } from './Migration20261204000000_counters_without_waits.js';
import { Migration20261130000000_version_image } from './Migration20261130000000_version_image.js';

/**
 * Every migration, in order. Listed explicitly (not discovered from the folder) so that the
 * same list runs under tsx, vitest and the CLI.
 */
export const migrations = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122010000_api_keys', class: Migration20261122010000_api_keys },
  { name: 'Migration20261122020000_contents', class: Migration20261122020000_contents },
  { name: 'Migration20261122030000_count_versions', class: Migration20261122030000_count_versions },
  { name: 'Migration20261122040000_count_shards', class: Migration20261122040000_count_shards },
  { name: 'Migration20261122050000_resources', class: Migration20261122050000_resources },
  { name: 'Migration20261122060000_webhooks', class: Migration20261122060000_webhooks },
  { name: 'Migration20261122070000_event_outbox', class: Migration20261122070000_event_outbox },
  { name: 'Migration20261122080000_scheduled_index', class: Migration20261122080000_scheduled_index },
  { name: 'Migration20261122090000_request_logs', class: Migration20261122090000_request_logs },
  { name: 'Migration20261122100000_guarded_casts', class: Migration20261122100000_guarded_casts },
  { name: 'Migration20261122110000_log_segments', class: Migration20261122110000_log_segments },
  { name: 'Migration20261123020000_event_order', class: Migration20261123020000_event_order },
  { name: 'Migration20261125000000_text_keys', class: Migration20261125000000_text_keys },
  { name: 'Migration20261125010000_contents_changes', class: Migration20261125010000_contents_changes },
  { name: 'Migration20261125020000_search', class: Migration20261125020000_search },
  { name: 'Migration20261125030000_revisions', class: Migration20261125030000_revisions },
  { name: 'Migration20261125040000_drafts', class: Migration20261125040000_drafts },
  { name: 'Migration20261126000000_event_feed', class: Migration20261126000000_event_feed },
  { name: 'Migration20261126010000_s3_storage', class: Migration20261126010000_s3_storage },
  { name: 'Migration20261126020000_file_derivatives', class: Migration20261126020000_file_derivatives },
  { name: 'Migration20261127160000_rollup_streams', class: Migration20261127160000_rollup_streams },
  { name: 'Migration20261128000000_roles', class: Migration20261128000000_roles },
  { name: 'Migration20261129000000_role_grants', class: Migration20261129000000_role_grants },
  { name: 'Migration20261130000000_version_image', class: Migration20261130000000_version_image },
  { name: 'Migration20261201000000_releases', class: Migration20261201000000_releases },
  { name: 'Migration20261202030000_shared_file_bytes', class: Migration20261202030000_shared_file_bytes },
  { name: 'Migration20261202040000_http_cache', class: Migration20261202040000_http_cache },
  { name: 'Migration20261202041500_http_cache_writes', class: Migration20261202041500_http_cache_writes },
  { name: 'Migration20261202070000_table_settings', class: Migration20261202070000_table_settings },
  { name: 'Migration20261203010000_cache_in_change_log', class: Migration20261203010000_cache_in_change_log },
  { name: 'Migration20261204000000_counters_without_waits', class: Migration20261204000000_counters_without_waits },
];
