import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { createFirm } from "../support/merchant.js";

/**
 * A changed webhook says what it does not reach (issue 49, point 4): the transactions made before
 * keep their callback URL and its retries. A change that leaves the webhook as it was says nothing.
 */
describe.each(STORES)("a firm's webhook changed (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
  });
  afterAll(() => server?.close());

  it("names the earlier transactions' callback URL when the webhook changes, and only then", async () => {
    const firm = await createFirm(server, { webhook_url: "http://127.0.0.1:9/old" });
    const changed = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
      webhook_url: "http://127.0.0.1:9/new",
    });
    expect(changed.status).toBe(200);
    expect(changed.json.webhook_url).toBe("http://127.0.0.1:9/new");
    expect(changed.json.note).toMatch(/^transactions made before this change keep the callback URL/);
    const same = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
      webhook_url: "http://127.0.0.1:9/new",
    });
    expect(same.json.note).toBeUndefined();
    const other = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { rate_limit_per_second: 50 });
    expect(other.json.note).toBeUndefined();
  });
});
