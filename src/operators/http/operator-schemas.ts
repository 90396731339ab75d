import { z } from "zod";

/** What an admin sends to add an operator or change one (console and admin API). */
export const operatorCreate = z.strictObject({
  email: z.string().trim().toLowerCase().email().max(200),
  role: z.enum(["admin", "operator", "viewer"]),
  /** Optional: without it a one-time password is generated and shown once. */
  password: z.string().min(12).max(200).optional(),
});

export const operatorUpdate = z.strictObject({
  role: z.enum(["admin", "operator", "viewer"]).optional(),
  active: z.boolean().optional(),
  unlock: z.literal(true).optional(),
  reset_second_factor: z.literal(true).optional(),
});
