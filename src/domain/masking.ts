/** First 2 characters + *** + last 2 for 6 or more characters; *** for shorter values. */
export function maskNationalId(value: string): string {
  const chars = [...value];
  if (chars.length === 0) return "";
  if (chars.length < 6) return "***";
  return `${chars.slice(0, 2).join("")}***${chars.slice(-2).join("")}`;
}

/** For logs and operator listings: country code and last 4 characters only. */
export function maskIban(value: string): string {
  const compact = value.replace(/\s+/g, "");
  if (compact.length <= 6) return "****";
  return `${compact.slice(0, 2)}**${compact.slice(-4)}`;
}
