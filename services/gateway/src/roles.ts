import type { Role } from '@switchyard/contracts';

/** How much each role may do. */
export const ROLE_RANK: Readonly<Record<Role, number>> = { viewer: 0, member: 1, admin: 2 };

/**
 * The lower of two roles: what a credential acts with when it was made with
 * one role and its person now has another (decision 0042: demoting a member
 * demotes their tokens and sessions at once).
 */
export function lowerRole(a: Role, b: Role): Role {
  return ROLE_RANK[a] <= ROLE_RANK[b] ? a : b;
}
