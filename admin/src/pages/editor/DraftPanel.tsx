import { Label, Radio, RadioGroup, Text } from 'react-aria-components';
import type { ContentRow } from '../../data/contents/queries.js';
import { ConfirmButton } from '../../ui/ConfirmDialog.js';
import { Button } from '../../ui/controls.js';

export type SaveTarget = 'draft' | 'live';

/**
 * Drafts of published rows (docs/contents.md#drafts-of-published-rows): where a save of a published row goes (a pending draft,
 * leaving the live values public, or the live row at once), and the pending draft's publish and
 * discard. The choice is locked while there are unsaved edits, which were made against the
 * values of one version.
 */
export function DraftPanel({ row, target, onTarget, isDirty, busy, onPublish, onDiscard }: {
  row: ContentRow;
  target: SaveTarget;
  onTarget(target: SaveTarget): void;
  isDirty: boolean;
  busy: boolean;
  onPublish(): Promise<unknown>;
  onDiscard(): Promise<unknown>;
}) {
  const published = row.status === 'PUBLISHED';
  return (
    <section className="card stack editor-draft" aria-labelledby="draft-heading">
      <h2 id="draft-heading">Draft</h2>
      {row.hasDraft ? (
        <p className="banner banner-warn">This row has an unpublished draft. The public sees the published version until the draft is published.</p>
      ) : (
        <p className="muted">No pending draft.</p>
      )}
      {published && (
        <RadioGroup className="editor-radios" value={target} onChange={(value) => onTarget(value as SaveTarget)} isDisabled={isDirty}>
          <Label className="field-label">Saving changes to this published row</Label>
          <Radio value="draft" className="editor-radio">
            Save as a draft (the published version stays live)
          </Radio>
          <Radio value="live" className="editor-radio">
            Change the published version at once
          </Radio>
          {isDirty && <Text slot="description" className="field-description">Save or reset your changes to switch.</Text>}
        </RadioGroup>
      )}
      {row.hasDraft && (
        <div className="row">
          <Button variant="primary" isDisabled={isDirty || busy} onPress={() => void onPublish()}>
            Publish draft
          </Button>
          <ConfirmButton label="Discard draft" title="Discard the draft?" confirmLabel="Discard draft" isDisabled={isDirty || busy} onConfirm={onDiscard}>
            <p>The draft's changes are lost; the published version stays as it is.</p>
          </ConfirmButton>
        </div>
      )}
    </section>
  );
}
