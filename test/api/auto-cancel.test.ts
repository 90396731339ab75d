import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";

const MINUTE = 60_000;

describe.each(STORES)("auto-cancel (%s)", (kind) => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      PAYINTAKE_CALLBACK_POLL_MS: "25",
      PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "25",
      LOG_LEVEL: "warn",
    });
    await addAccount(server);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  async function firmWithProvider(autoCancelMinutes: number): Promise<TestFirm> {
    const provider = await server.admin("POST", "/admin/v1/providers", {
      name: `P${autoCancelMinutes}`,
      auto_cancel_minutes: autoCancelMinutes,
    });
    expect(provider.status).toBe(201);
    return createFirm(server, { provider_id: provider.json.id, webhook_url: receiver.url });
  }

  async function create(firm: TestFirm, path: "deposits" | "withdrawals") {
    const body = path === "deposits" ? depositBody() : withdrawalBody();
    expect((await send(server, firm, { path: `/paymentapi/v1/${path}`, body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    return q.json.data.id as number;
  }
  const status = async (id: number) => (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;

  it("rejects a pending deposit once its provider's time has passed, with a reason and a callback", async () => {
    const firm = await firmWithProvider(2);
    const never = await firmWithProvider(0);
    const id = await create(firm, "deposits");
    const withdrawal = await create(firm, "withdrawals");
    const operatorOnly = await create(never, "deposits");
    const before = receiver.received.length;

    server.clock.advance(2 * MINUTE - 5_000);
    // Not before its time: it stays pending over several of the job's passes.
    await new Promise((r) => setTimeout(r, 150));
    expect((await status(id)).status).toBe("pending");

    server.clock.advance(6_000);
    const tx = await eventually(async () => {
      const t = await status(id);
      return t.status === "rejected" ? t : undefined;
    });
    expect(tx.decided_by).toBe("service:auto-cancel");
    expect(tx.decision_note).toBe("auto-cancelled: pending for more than 2 minutes");
    await receiver.waitFor(before + 1);
    const cb = JSON.parse(receiver.received[before]?.body ?? "");
    expect(cb).toMatchObject({ event: "deposit.rejected", id, status: "rejected" });

    // The merchant sees it too; withdrawals and providers without auto-cancel are left to operators.
    const q = await send(server, firm, { path: `/paymentapi/v1/transactions/${id}` });
    expect(q.json.status).toBe("rejected");
    server.clock.advance(30 * 24 * 60 * MINUTE);
    // Never, however late: they stay pending over several of the job's passes.
    await new Promise((r) => setTimeout(r, 150));
    expect((await status(withdrawal)).status).toBe("pending");
    expect((await status(operatorOnly)).status).toBe("pending");
  });

  it("catches up after downtime: everything that expired meanwhile is rejected, each exactly once", async () => {
    const firm = await firmWithProvider(1);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await create(firm, "deposits"));
    const before = receiver.received.length;
    server.clock.advance(7 * 24 * 60 * MINUTE);
    for (const id of ids) {
      await eventually(async () => ((await status(id)).status === "rejected" ? true : undefined));
    }
    await receiver.waitFor(before + 5);
    // Five callbacks on record, each delivered: nothing more is due to be sent.
    await expect
      .poll(async () =>
        (await server.admin("GET", `/admin/v1/callbacks?firm=${firm.id}`)).json.map(
          (c: { status: string }) => c.status,
        ),
      )
      .toEqual(Array(5).fill("delivered"));
    const bodies = receiver.received.slice(before).map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.id).sort()).toEqual([...ids].sort());
    expect(new Set(bodies.map((b) => b.event))).toEqual(new Set(["deposit.rejected"]));
  });

  it("an operator's decision and auto-cancel never both win", async () => {
    const firm = await firmWithProvider(1);
    const id = await create(firm, "deposits");
    server.clock.advance(MINUTE + 1);
    const approve = await server.admin("POST", `/admin/v1/transactions/${id}/approve`, {
      actor: "operator:x",
    });
    const tx = await eventually(async () => {
      const t = await status(id);
      return t.status !== "pending" ? t : undefined;
    });
    if (approve.status === 200) expect(tx.status).toBe("approved");
    else {
      expect(approve.status).toBe(409);
      expect(tx.decided_by).toBe("service:auto-cancel");
    }
    const list = (await server.admin("GET", `/admin/v1/callbacks?firm=${firm.id}`)).json;
    expect(list.filter((c: { transaction_id: number }) => c.transaction_id === id)).toHaveLength(1);
  });
});
