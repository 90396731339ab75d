import { describe, expect, it } from "vitest";
import { resolveCallbackUrl } from "../../src/intake/callback-url.js";

const WEBHOOK = "https://hooks.merchant.example/payintake/callback";

describe("resolveCallbackUrl", () => {
  it("uses the provider URL when set and ignores the header and webhook", () => {
    expect(
      resolveCallbackUrl({
        providerUrl: "https://central.provider.example/cb",
        headerUrl: "https://hooks.merchant.example/other",
        webhookUrl: WEBHOOK,
      }),
    ).toEqual({ ok: true, url: "https://central.provider.example/cb" });
  });

  it("the provider URL wins even over a header that would not match", () => {
    expect(
      resolveCallbackUrl({
        providerUrl: "https://central.provider.example/cb",
        headerUrl: "https://evil.example/steal",
        webhookUrl: null,
      }),
    ).toEqual({ ok: true, url: "https://central.provider.example/cb" });
  });

  it("uses the header when it matches the webhook's scheme, host and port; the path may differ", () => {
    const r = resolveCallbackUrl({
      providerUrl: null,
      headerUrl: "https://hooks.merchant.example/orders/42/cb?x=1",
      webhookUrl: WEBHOOK,
    });
    expect(r).toEqual({ ok: true, url: "https://hooks.merchant.example/orders/42/cb?x=1" });
  });

  it("keeps the header's query but not its fragment, which is never sent", () => {
    const r = resolveCallbackUrl({
      providerUrl: null,
      headerUrl: "https://hooks.merchant.example/cb?order=42#top",
      webhookUrl: WEBHOOK,
    });
    expect(r).toEqual({ ok: true, url: "https://hooks.merchant.example/cb?order=42" });
  });

  it("treats default ports as equal to no port", () => {
    expect(
      resolveCallbackUrl({
        providerUrl: null,
        headerUrl: "https://hooks.merchant.example:443/x",
        webhookUrl: WEBHOOK,
      }),
    ).toMatchObject({ ok: true });
    expect(
      resolveCallbackUrl({
        providerUrl: null,
        headerUrl: "http://hooks.merchant.example/x",
        webhookUrl: "http://hooks.merchant.example:80/cb",
      }),
    ).toMatchObject({ ok: true });
  });

  it("compares host names case-insensitively", () => {
    expect(
      resolveCallbackUrl({
        providerUrl: null,
        headerUrl: "https://HOOKS.Merchant.EXAMPLE/x",
        webhookUrl: WEBHOOK,
      }),
    ).toMatchObject({ ok: true });
  });

  it("uses the explicit matching port", () => {
    expect(
      resolveCallbackUrl({
        providerUrl: null,
        headerUrl: "https://hooks.merchant.example:8443/a",
        webhookUrl: "https://hooks.merchant.example:8443/b",
      }),
    ).toEqual({ ok: true, url: "https://hooks.merchant.example:8443/a" });
  });

  it.each([
    ["another host", "https://evil.example/cb"],
    ["a sub-domain", "https://x.hooks.merchant.example/cb"],
    ["a parent domain", "https://merchant.example/cb"],
    ["another scheme", "http://hooks.merchant.example/cb"],
    ["another port", "https://hooks.merchant.example:8443/cb"],
    ["port 80 on https", "https://hooks.merchant.example:80/cb"],
    ["an unparseable URL", "not a url"],
    ["a relative path", "/payintake/callback"],
    ["a host-prefix trick", "https://hooks.merchant.example.evil.example/cb"],
    // Only the path may differ: it was "Callback URL is not allowed", a message for addresses.
    ["userinfo", "https://user:pw@hooks.merchant.example/cb"],
    ["a user name", "https://user@hooks.merchant.example/cb"],
  ])("refuses a header with %s", (_label, headerUrl) => {
    expect(resolveCallbackUrl({ providerUrl: null, headerUrl, webhookUrl: WEBHOOK })).toEqual({
      ok: false,
      error: "header_host_mismatch",
    });
  });

  it("refuses a header when the account has no webhook", () => {
    expect(
      resolveCallbackUrl({
        providerUrl: null,
        headerUrl: "https://hooks.merchant.example/cb",
        webhookUrl: null,
      }),
    ).toEqual({ ok: false, error: "header_host_mismatch" });
  });

  it("falls back to the webhook when no header is sent", () => {
    expect(resolveCallbackUrl({ providerUrl: null, headerUrl: null, webhookUrl: WEBHOOK })).toEqual({
      ok: true,
      url: WEBHOOK,
    });
  });

  it("reports not_configured when nothing can be resolved", () => {
    expect(resolveCallbackUrl({ providerUrl: null, headerUrl: null, webhookUrl: null })).toEqual({
      ok: false,
      error: "not_configured",
    });
    expect(resolveCallbackUrl({ providerUrl: "", headerUrl: null, webhookUrl: "" })).toEqual({
      ok: false,
      error: "not_configured",
    });
  });
});
