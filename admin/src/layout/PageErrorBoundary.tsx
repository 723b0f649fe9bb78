import { Component, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { errorText } from '../data/errors.js';
import { Button } from '../ui/controls.js';

interface State {
  error: unknown;
}

/**
 * A page that fails to render (a bug, an answer of an unexpected shape) says so in its own place:
 * the navigation around it stays, and another page (or the same one again) can be opened.
 * Without it React unmounts the whole console and leaves a blank screen.
 */
class Boundary extends Component<{ resetKey: string; children: ReactNode }, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error };
  }

  componentDidUpdate(previous: { resetKey: string }) {
    // Another address is another page: it gets its own chance to render.
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  render() {
    if (!this.state.error) return this.props.children;
    return (
      <div role="alert" className="banner banner-error">
        <p>This page could not be shown: {errorText(this.state.error)}</p>
        {/* A reload asks for every answer again: one kept in the console's cache would fail the same way. */}
        <Button onPress={() => window.location.reload()}>Reload the page</Button>
      </div>
    );
  }
}

export function PageErrorBoundary({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return <Boundary resetKey={pathname}>{children}</Boundary>;
}
