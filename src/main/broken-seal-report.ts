/**
 * Tells the operators about a sealed value that does not open where it is (crypto/seal-context.ts:
 * copied from another row, or altered, in the database). The firm directory and the account pool
 * meet such a value again on every reload (each second or so, and on every request of a firm whose
 * secret is broken), so each place is reported at most once a minute: the log shows it without
 * being flooded by whoever keeps sending those requests.
 */
const EVERY_MS = 60_000;
const MAX_PLACES = 1_000;

export function createBrokenSealReport(
  log: { error(obj: object, msg: string): void },
  now: () => number,
): (place: string, fields: object, message: string) => void {
  const last = new Map<string, number>();
  return (place, fields, message) => {
    const t = now();
    const before = last.get(place);
    if (before !== undefined && t - before < EVERY_MS) return;
    if (last.size >= MAX_PLACES) last.clear();
    last.set(place, t);
    log.error(fields, message);
  };
}
