import { execFile, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/harness.js";
import { createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";
import { eventually, type Received, type Receiver, startReceiver } from "../support/receiver.js";

/**
 * Every snippet of the integration guides (English and Turkish) is run as written against a real
 * server: the signing ones create a deposit, the verifying ones check a real callback and refuse a
 * tampered one. PHP runs where an interpreter exists (.ci/run installs one).
 */
const DOCS = new URL("../../docs/", import.meta.url);
const GUIDES = ["integration-guide.md", "entegrasyon-rehberi.md"];
const ROOT = new URL("../../", import.meta.url).pathname;

interface Snippet {
  guide: string;
  name: string;
  lang: string;
  code: string;
}

function snippets(): Snippet[] {
  const out: Snippet[] = [];
  for (const guide of GUIDES) {
    const text = readFileSync(new URL(guide, DOCS), "utf8");
    for (const m of text.matchAll(/```(\w+)\n([\s\S]*?)```/g)) {
      const name = /snippet: ([\w-]+)/.exec(m[2]?.split("\n")[0] ?? "")?.[1];
      if (name) out.push({ guide, name, lang: m[1] as string, code: m[2] as string });
    }
  }
  return out;
}

const hasPhp = spawnSync("php", ["--version"]).status === 0;
const RUNNERS: Record<string, { ext: string; command: (file: string) => [string, string[]] }> = {
  sh: { ext: "sh", command: (f) => ["bash", [f]] },
  ts: { ext: "mts", command: (f) => [process.execPath, ["--import", "tsx", f]] },
  python: { ext: "py", command: (f) => ["python3", [f]] },
  php: { ext: "php", command: (f) => ["php", [f]] },
};

/** What the signing and hosted-mode snippets say, in each guide's language, when they cannot send. */
const MISSING: Record<string, { variables: string; server: RegExp }> = {
  "integration-guide.md": {
    variables: "Set PAYINTAKE_URL, PAYINTAKE_API_KEY and PAYINTAKE_SECRET_KEY first (section 1).",
    server: /^No answer from http:\/\/127\.0\.0\.1:3 \([^\n]+\): is the server running there\?\n$/,
  },
  "entegrasyon-rehberi.md": {
    variables:
      "Önce PAYINTAKE_URL, PAYINTAKE_API_KEY ve PAYINTAKE_SECRET_KEY değişkenlerini ayarlayın (bölüm 1).",
    server: /^http:\/\/127\.0\.0\.1:3 adresinden cevap yok \([^\n]+\): sunucu orada çalışıyor mu\?\n$/,
  },
};

/** The address opens the hosted payment page of a live session: 200, and the page's status open. */
async function expectOpenPaymentPage(url: string) {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await page.text()).toContain('<script type="application/json" id="status">{"status":"open"');
}

describe("integration guide snippets run as written", () => {
  let server: TestServer;
  let firm: TestFirm;
  let receiver: Receiver;
  let dir: string;
  let callback: Received;

  beforeAll(async () => {
    server = await startTestServer("sqlite", { LOG_LEVEL: "warn", PAYINTAKE_CALLBACK_POLL_MS: "50" });
    receiver = await startReceiver();
    firm = await createFirm(server, { webhook_url: receiver.url, sandbox: true });
    dir = mkdtempSync(join(tmpdir(), "payintake-snippets-"));
    const body = depositBody();
    await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    // A test firm's deposit is decided with its own sandbox helper (operators may not).
    const approved = await send(server, firm, {
      path: `/paymentapi/v1/sandbox/transactions/${q.json.data.id}/approve`,
      body: {},
    });
    expect(approved.status).toBe(200);
    callback = await eventually(async () =>
      receiver.received.find((r) => JSON.parse(r.body).id === q.json.data.id),
    );
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await receiver?.close();
    await server?.close();
  });

  /** Runs a snippet in its interpreter; asynchronously, since the server answers from this process. */
  function run(s: Snippet, env: Record<string, string>) {
    const runner = RUNNERS[s.lang];
    if (!runner) throw new Error(`no runner for ${s.lang}`);
    const file = join(dir, `${s.name}-${s.guide.slice(0, 3)}.${runner.ext}`);
    writeFileSync(file, s.code);
    const [cmd, args] = runner.command(file);
    return new Promise<{ stdout: string; stderr: string; status: number }>((resolve) => {
      execFile(
        cmd,
        args,
        {
          cwd: ROOT,
          encoding: "utf8",
          timeout: 30_000,
          env: {
            ...process.env,
            PYTHONIOENCODING: "utf-8",
            PAYINTAKE_URL: server.url,
            PAYINTAKE_API_KEY: firm.apiKey,
            PAYINTAKE_SECRET_KEY: firm.secret,
            ...env,
          },
        },
        (error, stdout, stderr) =>
          resolve({ stdout: stdout.trim(), stderr, status: error ? Number(error.code ?? 1) : 0 }),
      );
    });
  }

  const all = snippets();
  it("finds the four languages' signing, hosted-mode and verifying snippets in both guides", () => {
    const names = all.map((s) => `${s.guide}:${s.name}`).sort();
    for (const guide of GUIDES) {
      for (const n of ["curl", "ts", "python", "php"]) {
        expect(names).toContain(`${guide}:sign-${n}`);
        expect(names).toContain(`${guide}:hosted-${n}`);
        expect(names).toContain(`${guide}:verify-${n}`);
      }
    }
  });

  for (const s of all.filter((x) => x.name.startsWith("sign-"))) {
    it.runIf(s.lang !== "php" || hasPhp)(`${s.guide} ${s.name} creates a deposit`, async () => {
      const out = await run(s, {});
      expect(out.stderr).toBe("");
      expect(out.status).toBe(0);
      if (s.lang === "sh") {
        expect(JSON.parse(out.stdout)).toMatchObject({
          success: true,
          assigned_iban: "TR809999900000000000000001",
        });
      } else {
        expect(out.stdout).toMatch(/^200 (True|true) Yatırım talebiniz alındı TR809999900000000000000001$/);
      }
    });
  }

  for (const s of all.filter((x) => x.name.startsWith("hosted-"))) {
    it.runIf(s.lang !== "php" || hasPhp)(
      `${s.guide} ${s.name} opens a payment session and prints the page's full address`,
      async () => {
        const out = await run(s, {});
        expect(out.stderr).toBe("");
        expect(out.status).toBe(0);
        const lines = out.stdout.split("\n");
        expect(lines).toHaveLength(2);
        if (s.lang === "sh") {
          expect(JSON.parse(lines[0] ?? "")).toMatchObject({
            success: true,
            message: "Ödeme sayfasına yönlendiriniz",
            payment_url: expect.stringMatching(/^\/t\//),
          });
        } else {
          expect(lines[0]).toMatch(/^200 (True|true) Ödeme sayfasına yönlendiriniz$/);
        }
        // The server has no PAYMENT_PAGE_URL: its relative answer is joined to the API's address.
        expect(lines[1]).toMatch(new RegExp(`^${server.url.replaceAll(".", "\\.")}/t/[\\w-]+$`));
        await expectOpenPaymentPage(lines[1] ?? "");
      },
    );
  }

  // The snippets that talk to the server (signing and hosted mode) check their variables and the
  // server first, each in the same words.
  for (const s of all.filter((x) => /^(sign|hosted)-/.test(x.name))) {
    it.runIf(s.lang !== "php" || hasPhp)(
      `${s.guide} ${s.name} says in one line what is missing: its variables, then the server`,
      async () => {
        const words = MISSING[s.guide] as (typeof MISSING)[string];
        const unset = await run(s, { PAYINTAKE_URL: "", PAYINTAKE_API_KEY: "", PAYINTAKE_SECRET_KEY: "" });
        expect(unset.status).toBe(1);
        expect(unset.stdout).toBe("");
        expect(unset.stderr).toBe(`${words.variables}\n`);
        // A privileged port nothing listens on (fetch refuses some, such as 9, before connecting).
        const stopped = await run(s, { PAYINTAKE_URL: "http://127.0.0.1:3" });
        expect(stopped.status).toBe(1);
        expect(stopped.stdout).toBe("");
        expect(stopped.stderr).toMatch(words.server);
      },
    );
  }

  for (const s of all.filter((x) => x.name.startsWith("verify-"))) {
    it.runIf(s.lang !== "php" || hasPhp)(
      `${s.guide} ${s.name} accepts a real callback and refuses a tampered one`,
      async () => {
        const good = join(dir, "callback.json");
        writeFileSync(good, callback.body);
        const env = {
          CALLBACK_BODY_FILE: good,
          CALLBACK_TIMESTAMP: String(callback.headers["x-timestamp"]),
          CALLBACK_SIGNATURE: String(callback.headers["x-signature"]),
        };
        const ok = await run(s, env);
        expect(ok.stderr).toBe("");
        expect(ok.stdout).toBe(s.lang === "sh" ? "valid" : "valid deposit.approved 150.00");
        const bad = join(dir, "tampered.json");
        writeFileSync(bad, callback.body.replace('"amount":150.00', '"amount":1500.00'));
        expect((await run(s, { ...env, CALLBACK_BODY_FILE: bad })).stdout).toBe("invalid");
        expect((await run(s, { ...env, PAYINTAKE_SECRET_KEY: "sk_wrong" })).stdout).toBe("invalid");
        // Signed correctly, but 10 minutes old.
        const old = String(Number(env.CALLBACK_TIMESTAMP) - 600);
        const oldSignature = createHmac("sha256", firm.secret)
          .update(`${old}\n${callback.body}`)
          .digest("hex");
        expect(
          (await run(s, { ...env, CALLBACK_TIMESTAMP: old, CALLBACK_SIGNATURE: oldSignature })).stdout,
        ).toBe("invalid");
        // A hostile timestamp header is never evaluated, and a malformed signature is just unequal.
        const marker = join(dir, `pwned-${s.name}-${s.guide.slice(0, 3)}`);
        const hostile = await run(s, { ...env, CALLBACK_TIMESTAMP: `a[$(touch ${marker})]` });
        expect(hostile.stdout).toBe("invalid");
        expect(existsSync(marker)).toBe(false);
        const multibyte = await run(s, { ...env, CALLBACK_SIGNATURE: "é".repeat(64) });
        expect(multibyte.stdout).toBe("invalid");
        if (s.lang !== "sh") {
          // The header signature is right, but the body's hashcode is not: the contract's check fails.
          const forged = callback.body.replace(/"hashcode":"[0-9a-f]+"/, `"hashcode":"${"0".repeat(64)}"`);
          writeFileSync(bad, forged);
          const forgedSignature = createHmac("sha256", firm.secret)
            .update(`${env.CALLBACK_TIMESTAMP}\n${forged}`)
            .digest("hex");
          const wrongHash = await run(s, {
            ...env,
            CALLBACK_BODY_FILE: bad,
            CALLBACK_SIGNATURE: forgedSignature,
          });
          expect(wrongHash.stdout).toBe("invalid");
        }
      },
    );
  }

  it("PHP is there when CI runs (it installs php-cli)", () => {
    if (process.env.CI) expect(hasPhp).toBe(true);
    expect(existsSync(join(ROOT, ".ci/run"))).toBe(true);
  });
});

describe("the guides' word on a callback receiver on one's own machine", () => {
  // A newcomer runs payintake locally and points a firm at a receiver on 127.0.0.1: the guides must
  // name the refusal they will meet and the switch that lifts it, as the server has them.
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "false",
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a local webhook is refused with the message the guides quote, unless the server allows it", async () => {
    for (const guide of GUIDES) {
      const text = readFileSync(new URL(guide, DOCS), "utf8");
      expect(text, guide).toContain("`400 Callback URL is not allowed`");
      expect(text, guide).toContain("`PAYINTAKE_ALLOW_PRIVATE_CALLBACKS=true`");
      expect(text, guide).toContain("`http://127.0.0.1:3000/callbacks`");
    }
    const refused = await server.admin("POST", "/admin/v1/firms", {
      name: "Shop (test)",
      webhook_url: "http://127.0.0.1:3000/callbacks",
      sandbox: true,
    });
    expect(refused.status).toBe(400);
    // The admin API's answer begins with the guides' words and names the setting that allows it.
    expect(refused.json).toMatchObject({ success: false, code: "url_not_allowed" });
    expect(refused.json.message).toMatch(
      /^Callback URL is not allowed: .*PAYINTAKE_ALLOW_PRIVATE_CALLBACKS=true/,
    );
    const local = await startTestServer("sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
    });
    try {
      const allowed = await local.admin("POST", "/admin/v1/firms", {
        name: "Shop (test)",
        webhook_url: "http://127.0.0.1:3000/callbacks",
        sandbox: true,
      });
      expect(allowed.status).toBe(201);
    } finally {
      await local.close();
    }
  });
});
