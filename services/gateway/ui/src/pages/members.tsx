import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import { when } from '../format';
import { useMembers } from '../queries';
import { useWorkspace } from '../session';
import type { Invitation, Member } from '../types';

type Role = Member['role'];
const ROLES: Role[] = ['viewer', 'member', 'admin'];

/** An admin's invitation form: a role, then the one-time link to send (shown once). */
function Invite() {
  const { slug } = useWorkspace();
  const [role, setRole] = useState<Role>('member');
  const [invitation, setInvitation] = useState<Invitation | undefined>();
  const [error, setError] = useState<string | undefined>();
  const invite = async () => {
    setError(undefined);
    try {
      setInvitation(await api<Invitation>('POST', wsPath(slug, '/members/invitations'), { role }));
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <section aria-label="invite">
      <h2>Invite someone</h2>
      <div className="row">
        <label htmlFor="invite-role">as</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <button type="button" onClick={invite}>
          Create invitation link
        </button>
      </div>
      {invitation && (
        <p>
          <label htmlFor="invitation-url">Send this link (works once, until {when(invitation.expiresAt)}):</label>{' '}
          <input id="invitation-url" data-testid="invitation-url" readOnly value={invitation.url} size={80} onFocus={(e) => e.target.select()} />
        </p>
      )}
      {error && <p role="alert" className="error">{error}</p>}
    </section>
  );
}

/** One member: name, role (admins change it), since when, and removal (admins). */
function MemberRow({ member, admin, self }: { member: Member; admin: boolean; self: boolean }) {
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | undefined>();
  const change = async (method: 'PATCH' | 'DELETE', body?: unknown) => {
    setError(undefined);
    try {
      await api(method, wsPath(slug, `/members/${member.userId}`), body);
      await queryClient.invalidateQueries({ queryKey: ['members', slug] });
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <tr data-member-id={member.userId}>
      <td>
        {member.name}
        {self && ' (you)'}
      </td>
      <td>
        {admin ? (
          <select aria-label={`role of ${member.name}`} value={member.role} onChange={(e) => change('PATCH', { role: e.target.value })}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        ) : (
          member.role
        )}
      </td>
      <td>{when(member.joinedAt)}</td>
      <td>
        {admin && (
          <button type="button" onClick={() => change('DELETE')}>
            Remove {member.name}
          </button>
        )}
        {error && <span role="alert" className="error"> {error}</span>}
      </td>
    </tr>
  );
}

/** `/members`: the workspace's people (decision 0042). Everyone sees them; admins invite, change roles and remove. */
export function MembersPage() {
  const { slug, role, userId } = useWorkspace();
  const members = useMembers(slug);
  const admin = role === 'admin';
  return (
    <>
      <h1>Members</h1>
      {admin && <Invite />}
      {members.error && <p role="alert" className="error">{errorText(members.error)}</p>}
      <table data-testid="members">
        <thead>
          <tr>
            <th>Name</th>
            <th>Role</th>
            <th>Since</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {members.data?.map((member) => <MemberRow key={member.userId} member={member} admin={admin} self={member.userId === userId} />)}
        </tbody>
      </table>
    </>
  );
}
