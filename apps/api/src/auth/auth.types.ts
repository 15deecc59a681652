export const ROLES = ['user', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The caller, as proven by the bearer token. */
export interface AuthUser {
  id: string;
  role: Role;
}
