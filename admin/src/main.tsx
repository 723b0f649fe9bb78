import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { createConsoleRouter } from './app.js';
import { SessionProvider } from './data/session/session.js';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // Live updates come from the event feed (realtime.ts); no refetch on every window focus.
    queries: { staleTime: 10_000, refetchOnWindowFocus: false, retry: false },
  },
});

const router = createConsoleRouter();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
