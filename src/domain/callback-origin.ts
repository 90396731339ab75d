/** scheme://host:port, default ports written out, so two spellings of one receiver count as one. */
export function callbackOrigin(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${u.protocol}//${u.hostname}:${port}`;
}
