/**
 * First 2 characters + *** + last 2 for 6 or more characters; *** for shorter values, the empty
 * string included (decisions.md gives no exception for it, so a transaction created without a
 * national id reads `***` like one created with a short id).
 */
export function maskNationalId(value: string): string {
  const chars = [...value];
  if (chars.length < 6) return "***";
  return `${chars.slice(0, 2).join("")}***${chars.slice(-2).join("")}`;
}

/** For logs and operator listings: country code and last 4 characters only. */
export function maskIban(value: string): string {
  const compact = value.replace(/\s+/g, "");
  if (compact.length <= 6) return "****";
  return `${compact.slice(0, 2)}**${compact.slice(-4)}`;
}
