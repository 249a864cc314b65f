import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useRoute } from 'wouter';
import { closeLiveStream, useLiveStatus } from '../live';
import { useSession, useWorkspace } from '../session';

function NavLink({ href, children, match }: { href: string; children: ReactNode; match: string }) {
  const [active] = useRoute(match);
  return (
    <Link href={href} className={active ? 'active' : undefined} aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/** The frame of every signed-in page: navigation, workspace, live status, sign-out. */
export function Layout({ children }: { children: ReactNode }) {
  const { slug, role, userName } = useWorkspace();
  const { signOut } = useSession();
  const live = useLiveStatus(slug);
  const queryClient = useQueryClient();
  return (
    <>
      <header className="top">
        <strong className="brand">Switchyard</strong>
        <nav aria-label="main">
          <NavLink href="/" match="/">Fleet</NavLink>
          <NavLink href="/approvals" match="/approvals">Approvals</NavLink>
          <NavLink href="/agents" match="/agents/*?">Agents</NavLink>
          <NavLink href="/templates" match="/templates">Templates</NavLink>
          <NavLink href="/events" match="/events/*?">Events</NavLink>
          <NavLink href="/eval-suites" match="/eval-suites/*?">Evals</NavLink>
          <NavLink href="/team" match="/team">Team</NavLink>
          <NavLink href="/schedules" match="/schedules">Schedules</NavLink>
          <NavLink href="/overview" match="/overview">Overview</NavLink>
          <NavLink href="/members" match="/members">Members</NavLink>
          <NavLink href="/peer-notes" match="/peer-notes">Peer notes</NavLink>
          <NavLink href="/settings" match="/settings">Settings</NavLink>
          {role === 'admin' && <NavLink href="/audit" match="/audit">Audit</NavLink>}
        </nav>
        <span className="who">
          <span className={`live live-${live}`} title={`live stream: ${live}`} data-testid="live-status">
            ● {live}
          </span>{' '}
          {userName && (
            <>
              <span data-testid="user-name">{userName}</span> ·{' '}
            </>
          )}
          <span data-testid="workspace">{slug}</span> · {role}
        </span>
        <button
          type="button"
          onClick={async () => {
            closeLiveStream();
            await signOut();
            queryClient.clear();
          }}
        >
          Sign out
        </button>
      </header>
      <main>{children}</main>
    </>
  );
}
