import { memo, useEffect, useState, type ReactNode } from 'react';
import { AreaInput, GROWING_TEXT, longTextClass } from './inputs.js';
import { renderMarkdown } from './markdown.js';

/**
 * Typing pauses this long before the preview follows (longer for a longer text, whose preview
 * takes longer to render): a keystroke never waits for it.
 */
const previewPause = (text: string) => 250 + Math.round(text.length / 1000);

/** The rendered text; memoized, so a keystroke does not render the preview again. */
const Preview = memo(function Preview({ label, source }: { label: string; source: string }) {
  return (
    <section className="markdown-preview" aria-label={`Preview of ${label}`}>
      {renderMarkdown(source)}
    </section>
  );
});

/** A Markdown `longtext`: the text, and beside it (or instead, on request) its sanitized preview. */
export function MarkdownInput(props: { label: string; value: string; onChange(value: string): void; error?: string; description?: ReactNode; isRequired?: boolean }) {
  const [showPreview, setShowPreview] = useState(true);
  // The preview shows the text as it was when typing last paused (a long text's preview is
  // rendered once per pause, not once per keystroke).
  const [settled, setSettled] = useState(props.value);
  useEffect(() => {
    if (settled === props.value) return;
    const timer = setTimeout(() => setSettled(props.value), previewPause(props.value));
    return () => clearTimeout(timer);
  }, [props.value]);
  return (
    <div className="markdown-field">
      <AreaInput {...props} rows={8} className={`markdown-source ${longTextClass(props.value)}`} spellCheck={props.value.length <= GROWING_TEXT} />
      <label className="markdown-toggle">
        <input type="checkbox" checked={showPreview} onChange={(e) => setShowPreview(e.target.checked)} /> Show the preview of {props.label}
      </label>
      {showPreview && <Preview label={props.label} source={settled} />}
    </div>
  );
}
