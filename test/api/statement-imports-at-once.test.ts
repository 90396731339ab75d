import { Readable } from "node:stream";
import { type Dispatcher, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount } from "../support/merchant.js";
import { camtFile } from "../support/statement-files.js";

/**
 * Statement imports one server runs at once (PAYINTAKE_STATEMENT_IMPORTS, 2 by default; issue 45:
 * four 200 MB uploads at once took the server to 2 GB): a further upload is refused at once with
 * 503 `statement_imports_busy` and a Retry-After, before its body is read; a slot comes back when
 * an import ends, whether read, refused or cut off by its client. The test waits on the server's
 * own count (`payintake_statement_imports` on /metrics), never on time.
 */
describe.each(STORES)("statement imports at once (%s)", (kind) => {
  let server: TestServer;
  let account: { id: number; iban: string };

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  const running = async () => {
    const res = await request(`${server.url}/metrics`);
    const text = await res.body.text();
    return Number(/^payintake_statement_imports (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
  };
  const file = (sequence: string) =>
    camtFile({
      iban: account.iban,
      sequence,
      entries: [{ amount: "1.00", at: Date.now(), ref: `AT-${sequence}` }],
    });

  /** An upload whose body is sent in two halves: the second when `finish` is called. */
  function heldUpload(sequence: string) {
    const whole = file(sequence);
    const half = whole.indexOf("<Ntry>");
    const body = new Readable({ read() {} });
    body.push(whole.slice(0, half));
    const answer: Promise<Dispatcher.ResponseData> = request(
      `${server.url}/admin/v1/accounts/${account.id}/statements`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
        body,
      },
    );
    return {
      answer,
      finish() {
        body.push(whole.slice(half));
        body.push(null);
      },
      cut() {
        body.destroy(new Error("the client gave up"));
      },
    };
  }
  async function upload(body: string) {
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body,
    });
    return {
      status: res.statusCode,
      retryAfter: res.headers["retry-after"],
      json: (await res.body.json()) as any,
    };
  }

  it("a third upload while two are read is refused at once with a Retry-After; the slots come back", async () => {
    const first = heldUpload("1");
    const second = heldUpload("2");
    await expect.poll(running).toBe(2);

    const third = await upload(file("3"));
    expect(third).toMatchObject({
      status: 503,
      retryAfter: "30",
      json: { success: false, code: "statement_imports_busy" },
    });

    first.finish();
    second.finish();
    const answers = await Promise.all([first.answer, second.answer]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    for (const a of answers) expect(await a.body.json()).toMatchObject({ lines: 1 });
    await expect.poll(running).toBe(0);
    expect((await upload(file("3"))).status).toBe(200);
  });

  it("a refused file and an upload its client cut off give their slots back", async () => {
    expect((await upload("<Document><BkToCstmrStmt><Stmt>")).status).toBe(400);
    expect((await upload("not a statement")).status).toBe(400);
    await expect.poll(running).toBe(0);

    const cut = heldUpload("4");
    const held = heldUpload("5");
    await expect.poll(running).toBe(2);
    cut.cut();
    await cut.answer.catch(() => undefined);
    await expect.poll(running).toBe(1);
    held.finish();
    expect((await held.answer).statusCode).toBe(200);
    await expect.poll(running).toBe(0);
  });
});
