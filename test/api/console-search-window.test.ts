import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, pendingDeposit, type TestFirm } from "../support/merchant.js";

const DAY = 86_400_000;

/**
 * A search without dates looks at the last 31 days (issue 33: no screen reads years by accident),
 * and says so; one by a key (reference, id, user id) keeps all of time; dates given are kept.
 */
describe.each(STORES)("console search: the default window (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let cookie: string;
  let old: { id: number; reference: string };
  let recent: number;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server, {
      name: "Pencere Firma",
      max_pending_count: null,
      max_pending_amount: null,
    });
    await server.admin("POST", "/admin/v1/operators", {
      email: "viewer@ops.example",
      role: "viewer",
      password: "viewer-password-123",
    });
    // A deposit made 40 days ago, then one today, of the same payer's name and amount.
    server.clock.frozenAtMs = Date.now() - 40 * DAY;
    const reference = `OLD-${kind}-${Date.now()}`;
    old = {
      id: await pendingDeposit(server, firm, {
        first_name: "Şule",
        last_name: "Pencereci",
        amount: "321.00",
        reference,
      }),
      reference,
    };
    server.clock.frozenAtMs = undefined;
    recent = await pendingDeposit(server, firm, {
      first_name: "Şule",
      last_name: "Pencereci",
      amount: "321.00",
    });
    const login = await consoleLogin(server, "viewer@ops.example", "viewer-password-123");
    cookie = login.cookie;
  });
  afterAll(async () => {
    await server?.close();
  });

  const ids = (json: { id: number }[]) =>
    json.map((t) => t.id).filter((id) => id === old.id || id === recent);
  const windowStart = () => new Date(startOfTurkeyDay(server.clock.now()) - 30 * DAY).toISOString();
  /** The start the server gave a search made between two readings of the clock (a day may turn). */
  async function windowed<T>(search: () => Promise<T>): Promise<{ result: T; starts: string[] }> {
    const before = windowStart();
    const result = await search();
    return { result, starts: [before, windowStart()] };
  }

  it("a name or an amount without dates finds the last 31 days, and the answer says from when", async () => {
    for (const query of ["name=pencereci", "amount=321.00", `firm=${firm.id}`]) {
      const { result: res, starts } = await windowed(() =>
        consoleCall(server, "GET", `/ops/api/transactions?${query}`, { cookie }),
      );
      expect(res.status).toBe(200);
      expect(ids(res.json), query).toEqual([recent]);
      expect(starts, query).toContain(res.headers["x-search-from"]);
    }
  });

  it("dates given are kept: the old deposit is found, and nothing is said of a default", async () => {
    const from = new Date(Date.now() - 60 * DAY).toISOString();
    const res = await consoleCall(
      server,
      "GET",
      `/ops/api/transactions?name=pencereci&from=${encodeURIComponent(from)}`,
      {
        cookie,
      },
    );
    expect(ids(res.json)).toEqual([recent, old.id]);
    expect(res.headers["x-search-from"]).toBeUndefined();
  });

  it("an end without a start covers the 31 days up to that end, and says from when", async () => {
    const search = (to: number) =>
      consoleCall(server, "GET", `/ops/api/transactions?name=pencereci&to=${new Date(to).toISOString()}`, {
        cookie,
      });
    const startFor = (to: number) => new Date(startOfTurkeyDay(to - 1) - 30 * DAY).toISOString();
    // Until 20 days ago: the old deposit (40 days ago) is within the 31 days before that end.
    const earlier = server.clock.now() - 20 * DAY;
    const before = await search(earlier);
    expect(ids(before.json)).toEqual([old.id]);
    expect(before.headers["x-search-from"]).toBe(startFor(earlier));
    // Until tomorrow: the last 31 days, as with no dates at all.
    const later = server.clock.now() + DAY;
    const recentOnly = await search(later);
    expect(ids(recentOnly.json)).toEqual([recent]);
    expect(recentOnly.headers["x-search-from"]).toBe(startFor(later));
  });

  it("a reference or an id keeps all of time", async () => {
    for (const query of [`reference=${old.reference}`, `id=${old.id}`]) {
      const res = await consoleCall(server, "GET", `/ops/api/transactions?${query}`, { cookie });
      expect(ids(res.json), query).toEqual([old.id]);
      expect(res.headers["x-search-from"], query).toBeUndefined();
    }
  });

  it("an export without dates takes the same window, and its audit row names the start it was given", async () => {
    const csv = await request(`${server.url}/ops/api/transactions.csv?name=pencereci`, {
      headers: { cookie },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["x-search-from"]).toBe(windowStart());
    const lines = (await csv.body.text()).split("\r\n").filter((l) => l !== "");
    expect(lines.slice(1).map((l) => Number(l.split(",")[0]))).toEqual([recent]);
    const exports = await server.admin("GET", "/admin/v1/audit?action=transactions.exported");
    expect(exports.json[0].after).toEqual({
      filter: { name: ["pencereci"], from: windowStart() },
      rows: 1,
      format: "csv",
    });
  });
});
