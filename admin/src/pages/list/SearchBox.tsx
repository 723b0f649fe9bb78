import { useEffect, useRef, useState } from 'react';
import { Button, Input, Label, SearchField } from 'react-aria-components';

/** How long typing pauses before the list searches: one request per word, not per key. */
const PAUSE_MS = 300;

/**
 * Full-text search of the table (the list's `search`, docs/contents.md#search: words, "exact phrase", or, -word;
 * the last word matches as a prefix). Searches as the person types, after a pause; Enter searches
 * at once, Escape clears.
 */
export function SearchBox({ value, onSearch }: { value: string; onSearch(text: string): void }) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // What this box last searched: the address catching up with it must not undo keys typed since.
  const sent = useRef(value);
  // The address changed under the box (the back button): show what is searched.
  useEffect(() => {
    if (value !== sent.current) setText(value);
    sent.current = value;
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const change = (next: string) => {
    setText(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => search(next), PAUSE_MS);
  };
  const search = (next: string) => {
    sent.current = next.trim();
    onSearch(next.trim());
  };
  const now = (next: string) => {
    clearTimeout(timer.current);
    search(next);
  };
  return (
    <SearchField className="field list-search" value={text} onChange={change} onSubmit={now} onClear={() => now('')}>
      <Label>Search rows</Label>
      <div className="list-search-box">
        <Input placeholder='Words, "a phrase", -without' />
        {text !== '' && (
          <Button className="btn btn-ghost list-search-clear" aria-label="Clear search">
            ✕
          </Button>
        )}
      </div>
    </SearchField>
  );
}
