import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import { DEVICE_TTL_MS } from "../../src/operators/devices.js";
import { createConsoleService } from "../../src/operators/service.js";
import { FORGET_FAILURES_MS } from "../../src/operators/sign-in-attempts.js";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories } from "../../src/store/index.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { freshStore } from "../support/store.js";

/** What sign-in from known browsers keeps in the store (ADR 0007), on a real store of each kind. */
describe.each(STORES)("known browsers and login locks in the store (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let now = Date.UTC(2026, 10, 24, 12);
  let service: ReturnType<typeof createConsoleService>;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    service = createConsoleService({
      repos: createRepositories(store),
      box: createSecretBox(randomBytes(32)),
      now: () => now,
    });
    const made = await service.createOperator("ayse@ops.example", "viewer", "ayse-password-123");
    expect(made.ok).toBe(true);
  });
  afterAll(async () => {
    await close?.();
  });

  const devices = () => store.db.selectFrom("operator_devices").selectAll().execute();
  const locks = () => store.db.selectFrom("login_locks").selectAll().execute();

  it("keeps a browser's token and a typed email only as hashes", async () => {
    const signedIn = await service.login("ayse@ops.example", "ayse-password-123", "10.0.0.1");
    if (!signedIn.ok) throw new Error("sign-in failed");
    const token = signedIn.device_cookie;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await devices()).toEqual([
      expect.objectContaining({
        token_hash: createHash("sha256").update(token).digest("hex"),
        seen_at: now,
        created_at: now,
      }),
    ]);
    // A known browser's wrong guess, and an email that is no operator's.
    await service.login("ayse@ops.example", "wrong-password", "10.0.0.1", undefined, token);
    await service.login("Typed.Person@Example.com", "wrong-password", "10.0.0.1");
    // Named by hashes only: the browser's through its token's SHA-256, the email through its own.
    const sha256 = (text: string, encoding: "hex" | "base64url") =>
      createHash("sha256").update(text).digest(encoding);
    const id = signedIn.operator.id;
    expect((await locks()).map((l) => [l.key, l.failures]).sort()).toEqual(
      [
        [`d:${id}:${sha256(token, "hex")}`, 1],
        [`e:${sha256("typed.person@example.com", "base64url")}`, 1],
      ].sort(),
    );
  });

  it("forgets browsers unused for 180 days and locks idle for a day, at most once a minute", async () => {
    now += FORGET_FAILURES_MS + 1;
    // The next sign-in sweeps: the locks above are a day old; the browser is not yet forgotten.
    await service.login("nobody-new@ops.example", "wrong-password", "10.0.0.2");
    // The sweep runs beside the sign-in, not awaited by it: the old locks go, the browser stays.
    await expect
      .poll(async () => ({ locks: (await locks()).length, devices: (await devices()).length }))
      .toEqual({ locks: 1, devices: 1 });
    now += DEVICE_TTL_MS;
    await service.login("nobody-newer@ops.example", "wrong-password", "10.0.0.3");
    await expect
      .poll(async () => ({ devices: await devices(), locks: (await locks()).map((l) => l.updated_at) }))
      .toEqual({ devices: [], locks: [now] });
  });
});
