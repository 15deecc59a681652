export const ROLES = ['user', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The caller, as proven by the bearer token. */
export interface AuthUser {
  id: string;
  role: Role;
  /** The verified token's claims, for the checks that read more than sub and role (waitingRoom.requiredClaim). */
  claims?: Readonly<Record<string, unknown>>;
}
