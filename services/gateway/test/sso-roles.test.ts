import { SsoRoleMapSchema } from '@switchyard/contracts';
import { roleOfGroups } from '../src/commands/sso-sign-in';

/** Decision 0042: how OIDC_ROLE_MAP is read, and how a person's groups give their role. */
describe('single sign-on roles from groups', () => {
  it('reads group=role pairs, trimming, a group name that holds "=" kept whole', () => {
    expect({ ...SsoRoleMapSchema.parse(' admins = admin ,devs=member,a=b=viewer,') }).toEqual({ admins: 'admin', devs: 'member', 'a=b': 'viewer' });
    expect(roleOfGroups(['__proto__'], SsoRoleMapSchema.parse('__proto__=admin'))).toBe('admin');
  });

  it.each(['', ',', 'admins', '=admin', 'admins=owner', 'admins=admin,devs'])('refuses %j naming the bad pair', (text) => {
    expect(SsoRoleMapSchema.safeParse(text).success).toBe(false);
  });

  it('gives the highest role any group maps to, and none when no group maps', () => {
    const map = SsoRoleMapSchema.parse('staff=viewer,devs=member,admins=admin');
    expect(roleOfGroups(['staff', 'devs'], map)).toBe('member');
    expect(roleOfGroups(['admins', 'staff'], map)).toBe('admin');
    expect(roleOfGroups(['staff'], map)).toBe('viewer');
    expect(roleOfGroups(['visitors'], map)).toBeNull();
    expect(roleOfGroups([], map)).toBeNull();
    // Only own properties count: a group named like an Object prototype member maps to nothing.
    expect(roleOfGroups(['constructor', 'toString', '__proto__'], map)).toBeNull();
  });
});
