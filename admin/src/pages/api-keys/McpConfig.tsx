import { useState } from 'react';
import { apiOrigin } from '../../data/session/session.js';
import { Button } from '../../ui/controls.js';

/**
 * The configuration an MCP client (an AI agent's host) needs to reach this project with the key
 * just shown (`POST /mcp`, the MCP server): copied to the clipboard, or shown to copy by hand when the browser
 * refuses the clipboard. Only while the key's value is on screen: it is never shown again.
 */
export function mcpConfiguration(secret: string): string {
  const config = { mcpServers: { tabula: { type: 'http', url: `${apiOrigin()}/mcp`, headers: { Authorization: `Bearer ${secret}` } } } };
  return JSON.stringify(config, null, 2);
}

export function McpConfig({ secret }: { secret: string }) {
  const [state, setState] = useState<'copied' | 'failed' | null>(null);
  const text = mcpConfiguration(secret);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <div className="stack">
      <div className="row">
        <Button onPress={copy}>Copy MCP configuration</Button>
        <span role="status" className="muted">
          {state === 'copied' ? 'MCP configuration copied to the clipboard.' : ''}
        </span>
      </div>
      {state === 'failed' && (
        <div className="field">
          <label className="field-label" htmlFor="mcp-config">
            MCP configuration
          </label>
          <p className="field-error">The browser refused the clipboard: select this text and copy it by hand.</p>
          <textarea id="mcp-config" className="ops-secret mono" readOnly rows={9} value={text} onFocus={(event) => event.currentTarget.select()} />
        </div>
      )}
    </div>
  );
}
