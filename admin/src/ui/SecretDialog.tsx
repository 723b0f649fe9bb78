import { useState, type ReactNode } from 'react';
import { Button } from './controls.js';
import { ModalDialog } from './feedback.js';

/**
 * A secret the server shows once (an API key's value, a webhook's signing secret): in a dialog
 * with a Copy button. Once the dialog is closed the console has no way to show it again, so the
 * text says so.
 */
export function SecretDialog({ title, label, secret, onClose, children }: { title: string; label: string; secret: string | null; onClose(): void; children?: ReactNode }) {
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const close = () => {
    setCopied(null);
    onClose();
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret ?? '');
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <ModalDialog title={title} isOpen={secret !== null} onClose={close}>
      <div className="stack">
        <p className="banner banner-warn">Copy it now: it is shown only this once and cannot be shown again.</p>
        <div className="field">
          <label className="field-label" htmlFor="ops-secret">
            {label}
          </label>
          <input id="ops-secret" className="ops-secret mono" readOnly value={secret ?? ''} onFocus={(event) => event.currentTarget.select()} />
        </div>
        <p role="status" className={copied === 'failed' ? 'field-error' : 'muted'}>
          {copied === 'copied' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The browser refused the clipboard: select the value and copy it by hand.' : ''}
        </p>
        {children}
      </div>
      <div className="dialog-actions">
        <Button variant="primary" onPress={copy}>
          Copy
        </Button>
        <Button onPress={close}>Done</Button>
      </div>
    </ModalDialog>
  );
}
