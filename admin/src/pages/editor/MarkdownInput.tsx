import { useDeferredValue, useState, type ReactNode } from 'react';
import { AreaInput } from './inputs.js';
import { renderMarkdown } from './markdown.js';

/** A Markdown `longtext`: the text, and beside it (or instead, on request) its sanitized preview. */
export function MarkdownInput(props: { label: string; value: string; onChange(value: string): void; error?: string; description?: ReactNode; isRequired?: boolean }) {
  const [showPreview, setShowPreview] = useState(true);
  // The preview follows the typing at the pace React can spare: typing never waits for it.
  const deferred = useDeferredValue(props.value);
  return (
    <div className="markdown-field">
      <AreaInput {...props} rows={8} className="markdown-source" />
      <label className="markdown-toggle">
        <input type="checkbox" checked={showPreview} onChange={(e) => setShowPreview(e.target.checked)} /> Show the preview of {props.label}
      </label>
      {showPreview && (
        <section className="markdown-preview" aria-label={`Preview of ${props.label}`}>
          {renderMarkdown(deferred)}
        </section>
      )}
    </div>
  );
}
