import type { ReactNode } from 'react';

/*
 * A small Markdown renderer for the preview of `longtext` columns whose `settings.format` is
 * `markdown` (docs/console.md#markdown). It builds React elements, never an HTML string: raw HTML
 * in the text shows as text (React escapes it), and nothing is evaluated. Links keep only
 * http(s), mailto and relative addresses; any other (`javascript:`, `data:`, `vbscript:`…) is
 * shown as its text without a link. Supported: # headings, paragraphs, - / * / 1. lists,
 * > quotes, ``` code blocks, `code`, **bold**, *italic*, [links](url) and ---.
 */

/** An address a link may point to; null for anything else (after removing what browsers ignore). */
export function safeHref(raw: string): string | null {
  // Browsers drop control characters and whitespace inside a scheme ("java\tscript:").
  const url = raw.trim().replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  if (!scheme) return url.startsWith('//') ? null : url;
  return ['http', 'https', 'mailto'].includes(scheme[1].toLowerCase()) ? url : null;
}

// Underscores inside words (`snake_case`) are no emphasis, as in CommonMark; no span crosses a line.
const INLINE = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\s][^*\n]*\*|(?<!\w)_[^_\s][^_\n]*_(?!\w))|(\[[^\]\n]*\]\([^)\s]*\))/g;

function inline(text: string, key: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const k = `${key}-${n++}`;
    const token = m[0];
    if (m[1]) out.push(<code key={k}>{token.slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong key={k}>{inline(token.slice(2, -2), k)}</strong>);
    else if (m[3]) out.push(<em key={k}>{inline(token.slice(1, -1), k)}</em>);
    else {
      const [, label, href] = /^\[([^\]]*)\]\(([^)\s]*)\)$/.exec(token)!;
      const safe = safeHref(href);
      out.push(
        safe === null ? (
          <span key={k}>{label}</span>
        ) : (
          <a key={k} href={safe} rel="noopener noreferrer nofollow" target="_blank">
            {inline(label, k)}
          </a>
        ),
      );
    }
    last = m.index + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function renderMarkdown(source: string): ReactNode[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: ReactNode[] = [];
  let i = 0;
  const key = () => `b${blocks.length}`;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
    } else if (line.startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      i++;
      blocks.push(<pre key={key()}><code>{code.join('\n')}</code></pre>);
    } else if (/^#{1,6}\s/.test(line)) {
      const level = /^#+/.exec(line)![0].length;
      const Tag = `h${Math.min(6, level + 2)}` as 'h3';
      blocks.push(<Tag key={key()}>{inline(line.slice(level).trim(), key())}</Tag>);
      i++;
    } else if (/^(-{3,}|\*{3,})\s*$/.test(line)) {
      blocks.push(<hr key={key()} />);
      i++;
    } else if (/^>\s?/.test(line)) {
      const quote: string[] = [];
      for (; i < lines.length && /^>\s?/.test(lines[i]); i++) quote.push(lines[i].replace(/^>\s?/, ''));
      blocks.push(<blockquote key={key()}>{renderMarkdown(quote.join('\n'))}</blockquote>);
    } else if (/^\s*([-*+]|\d+\.)\s/.test(line)) {
      const ordered = /^\s*\d+\.\s/.test(line);
      const items: string[] = [];
      for (; i < lines.length && /^\s*([-*+]|\d+\.)\s/.test(lines[i]); i++) items.push(lines[i].replace(/^\s*([-*+]|\d+\.)\s/, ''));
      const k = key();
      const children = items.map((item, j) => <li key={j}>{inline(item, `${k}-${j}`)}</li>);
      blocks.push(ordered ? <ol key={k}>{children}</ol> : <ul key={k}>{children}</ul>);
    } else {
      const para: string[] = [];
      for (; i < lines.length && lines[i].trim() !== '' && !/^(#{1,6}\s|```|>|\s*([-*+]|\d+\.)\s)/.test(lines[i]); i++) para.push(lines[i]);
      const k = key();
      blocks.push(<p key={k}>{inline(para.join('\n'), k)}</p>);
    }
  }
  return blocks;
}
