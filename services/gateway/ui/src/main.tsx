import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Route, Switch } from 'wouter';
import { ApiError } from './api';
import { Layout } from './components/layout';
import { AgentCraftPage } from './pages/agent-craft';
import { AgentDetailPage } from './pages/agent-detail';
import { AgentNewPage } from './pages/agent-new';
import { AgentsPage } from './pages/agents';
import { ApprovalsPage } from './pages/approvals';
import { AuditPage } from './pages/audit';
import { EventDetailPage } from './pages/event-detail';
import { EventsPage } from './pages/events';
import { FleetPage } from './pages/fleet';
import { OverviewRoute } from './pages/overview-route';
import { PeerNotesPage } from './pages/peer-notes';
import { RunDetailPage } from './pages/run-detail';
import { SchedulesPage } from './pages/schedules';
import { SettingsPage } from './pages/settings';
import { SignInPage } from './pages/sign-in';
import { JoinPage, SignInLinkPage } from './pages/join';
import { MembersPage } from './pages/members';
import { TeamPage } from './pages/team';
import { TeammatePage } from './pages/teammate';
import { TeamDetailPage, TeamsPage } from './pages/teams';
import { TemplatesPage } from './pages/templates';
import { SessionProvider, useSession } from './session';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // A 4xx will not change by asking again; the live stream refreshes what changes.
    queries: { retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2, refetchOnWindowFocus: false, staleTime: 5_000 },
  },
});

function App() {
  const { session } = useSession();
  // The one-time links' pages come before any session: a person may open one signed in as someone else.
  if (window.location.pathname === '/join') return <JoinPage />;
  if (window.location.pathname === '/sign-in') return <SignInLinkPage />;
  if (session === undefined) return <p className="loading">Loading…</p>;
  if (session === null) return <SignInPage />;
  return (
    <Layout>
      <Switch>
        <Route path="/" component={FleetPage} />
        <Route path="/runs/:id" component={RunDetailPage} />
        <Route path="/agents" component={AgentsPage} />
        <Route path="/agents/new" component={AgentNewPage} />
        <Route path="/agents/craft" component={AgentCraftPage} />
        <Route path="/agents/:id/craft" component={AgentCraftPage} />
        <Route path="/agents/:id" component={AgentDetailPage} />
        <Route path="/templates" component={TemplatesPage} />
        <Route path="/approvals" component={ApprovalsPage} />
        <Route path="/events" component={EventsPage} />
        <Route path="/events/:id" component={EventDetailPage} />
        <Route path="/team" component={TeamPage} />
        <Route path="/teams" component={TeamsPage} />
        <Route path="/teams/:name" component={TeamDetailPage} />
        <Route path="/teammates/:name" component={TeammatePage} />
        <Route path="/schedules" component={SchedulesPage} />
        <Route path="/audit" component={AuditPage} />
        <Route path="/members" component={MembersPage} />
        <Route path="/overview" component={OverviewRoute} />
        <Route path="/peer-notes" component={PeerNotesPage} />
        <Route path="/settings" component={SettingsPage} />
        <Route>
          <p role="alert">No such page.</p>
        </Route>
      </Switch>
    </Layout>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
