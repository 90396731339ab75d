import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/harness.js";

/**
 * The README's "Your first deposit", as a newcomer pastes it: its CLI commands create the firm and
 * the account, its node snippet and its curl snippets (in one shell, as the README says) send the
 * deposits and query one back. Only what a reader must fill in is filled in: the key, the secret,
 * and the port of this test's server instead of 8080.
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const section = README.slice(README.indexOf("## Your first deposit"), README.indexOf("## The operator CLI"));
const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
  lang: m[1] as string,
  code: m[2] as string,
}));

function run(command: string, args: string[], env: Record<string, string>) {
  return new Promise<{ stdout: string; stderr: string; status: number }>((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, encoding: "utf8", timeout: 30_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ stdout: stdout.trim(), stderr, status: error ? Number(error.code ?? 1) : 0 }),
    );
  });
}

describe("the README's first deposit runs as written", () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer("sqlite", { LOG_LEVEL: "warn" });
    dir = mkdtempSync(join(tmpdir(), "payintake-readme-"));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  it("has the CLI block, the node snippet, the curl deposit and the curl query, in that order", () => {
    expect(blocks.map((b) => b.lang)).toEqual(["sh", "js", "sh", "sh"]);
  });

  it("creates a firm and an account, deposits with node and curl, and reads the deposit back", async () => {
    const [cliBlock, nodeBlock, curlBlock, queryBlock] = blocks.map((b) => b.code);
    const cliEnv = { PAYINTAKE_URL: server.url, PAYINTAKE_ADMIN_TOKEN: server.adminToken };

    // The CLI commands, each as written but for `npx payintake` (npx would look for the package).
    const commands = (cliBlock ?? "").split("\n").filter((l) => l.startsWith("npx payintake "));
    expect(commands).toHaveLength(2);
    const printed: Record<string, unknown>[] = [];
    for (const line of commands) {
      const script = join(dir, "cli.sh");
      writeFileSync(script, line.replace("npx payintake ", `"${process.execPath}" dist/main/cli.js `));
      const out = await run("bash", [script], cliEnv);
      expect(out.status, out.stderr).toBe(0);
      printed.push(JSON.parse(out.stdout));
    }
    const [firm, account] = printed;
    expect(firm).toMatchObject({
      api_key: expect.stringMatching(/^pk_/),
      secret_key: expect.stringMatching(/^sk_/),
    });
    expect(account).toMatchObject({ bank_name: "Ziraat Bankası", iban: "TR330006100519786457841326" });
    const key = firm?.api_key as string;
    const secret = firm?.secret_key as string;
    const fill = (code: string) =>
      code
        .replaceAll('"pk_..."', JSON.stringify(key))
        .replaceAll('"sk_..."', JSON.stringify(secret))
        .replaceAll("KEY=pk_...", `KEY=${key}`)
        .replaceAll("SECRET=sk_...", `SECRET=${secret}`)
        .replaceAll("http://127.0.0.1:8080", server.url);

    const mjs = join(dir, "deposit.mjs");
    writeFileSync(mjs, fill(nodeBlock ?? ""));
    const node = await run(process.execPath, [mjs], {});
    expect(node.stderr).toBe("");
    expect(node.stdout).toMatch(
      /^200 \{"success":true,"message":"Yatırım talebiniz alındı","assigned_bank_name":"Ziraat Bankası",/,
    );

    // The curl deposit and the query in one shell: the query reuses KEY and SECRET.
    const sh = join(dir, "curl.sh");
    writeFileSync(sh, `${fill(curlBlock ?? "")}\necho\n${fill(queryBlock ?? "")}`);
    const curl = await run("bash", [sh], {});
    expect(curl.status, curl.stderr).toBe(0);
    const [deposited, queried] = curl.stdout.split("\n").map((l) => JSON.parse(l));
    expect(deposited).toMatchObject({ success: true, assigned_iban: "TR330006100519786457841326" });
    expect(queried).toMatchObject({
      success: true,
      status: "pending",
      data: { reference: "ORD-1", user_id: "43", amount: 150, type: "deposit", method: "fast" },
    });
  });
});
