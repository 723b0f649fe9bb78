import { useState, type FormEvent } from 'react';
import { Form } from 'react-aria-components';
import { errorText } from '../../data/errors.js';
import { clientFor, useSessionState } from '../../data/session/session.js';
import { Button, CheckboxInput, TextInput } from '../../ui/controls.js';

/**
 * Sign-in with an account token (`tat_…`, printed by `npm start` for the first admin, or made by
 * `npm run cli -- token create`). The token is tried (`accounts.me`) before it is kept.
 */
export function SignInPage() {
  const { signIn } = useSessionState();
  const [token, setToken] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = token.trim();
    if (!value.startsWith('tat_')) {
      setError('An account token starts with tat_ (API keys, tak_…, are for programs)');
      return;
    }
    setBusy(true);
    try {
      await clientFor(value).accounts.me.query({});
      signIn(value, remember);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="signin">
      <Form className="card signin-card" validationBehavior="aria" onSubmit={submit}>
        <h1>Sign in to Tabula</h1>
        <TextInput label="Account token" type="password" value={token} onChange={setToken} error={error} autoFocus isRequired description="tat_…, from npm start's first output or npm run cli -- token create" />
        <CheckboxInput label="Remember me on this device" value={remember} onChange={setRemember} />
        <Button type="submit" variant="primary" isDisabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
      </Form>
    </main>
  );
}
