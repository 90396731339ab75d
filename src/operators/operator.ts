import type { OperatorRow } from "../store/operators/operators.js";

export type Role = OperatorRow["role"];

export interface ConsoleOperator {
  id: number;
  email: string;
  role: Role;
  /** Whether sign-in also asks for a code from an authenticator app. */
  second_factor: boolean;
}

/** An operator as the console and the admin API show them: never a hash or a secret. */
export const operatorView = (o: OperatorRow): ConsoleOperator => ({
  id: o.id,
  email: o.email,
  role: o.role,
  second_factor: o.totp_sealed !== null,
});

export function roleAllows(role: Role, needed: Role): boolean {
  const rank = { viewer: 0, operator: 1, admin: 2 } as const;
  return rank[role] >= rank[needed];
}
