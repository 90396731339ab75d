import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/harness.js";

/**
 * The README's "Your first deposit", as a newcomer pastes it into one terminal: its CLI block adds
 * the account and creates the firm (its key and secret set in the shell by `--env`), its node
 * snippet and its curl snippets send the deposits and query one back, and its hosted-mode node
 * snippet prints the payment page's address, which opens the page. Nothing is filled in but the
 * port of this test's server instead of 8080.
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const section = README.slice(README.indexOf("## Your first deposit"), README.indexOf("## Where to go next"));
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

  it("has the CLI block, the node snippet, the curl deposit, the curl query and the hosted node snippet, in that order", () => {
    expect(blocks.map((b) => b.lang)).toEqual(["sh", "js", "sh", "sh", "js"]);
  });

  it("creates an account and a firm, deposits with node and curl, reads the deposit back and opens a hosted payment page, in one terminal", async () => {
    const [cliBlock, nodeBlock, curlBlock, queryBlock, hostedBlock] = blocks.map((b) => b.code);
    writeFileSync(join(dir, "deposit.mjs"), nodeBlock ?? "");
    writeFileSync(join(dir, "hosted.mjs"), hostedBlock ?? "");
    // As pasted into one terminal, editing nothing: only `npx payintake` is this checkout's CLI (npx
    // would look for the package), and the port is this test server's, as a reader's own choice.
    const script = [
      `npx() { shift; "${process.execPath}" "${ROOT}dist/main/cli.js" "$@"; }`,
      (cliBlock ?? "").replaceAll("http://127.0.0.1:8080", server.url),
      "echo ---",
      `(cd "${dir}" && "${process.execPath}" deposit.mjs)`,
      "echo ---",
      curlBlock ?? "",
      "echo",
      "echo ---",
      queryBlock ?? "",
      "echo",
      "echo ---",
      `(cd "${dir}" && "${process.execPath}" hosted.mjs)`,
    ].join("\n");
    writeFileSync(join(dir, "terminal.sh"), script);
    const out = await run("bash", ["-e", join(dir, "terminal.sh")], {
      PAYINTAKE_ADMIN_TOKEN: server.adminToken,
    });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/^firm \d+ created; its secret key is shown only here$/m);
    const [account, node, deposited, queried, hosted] = out.stdout.split("---\n").map((part) => part.trim());
    expect(JSON.parse(account ?? "")).toMatchObject({
      bank_name: "Ziraat Bankası",
      iban: "TR330006100519786457841326",
    });
    expect(node).toMatch(
      /^200 \{"success":true,"message":"Yatırım talebiniz alındı","assigned_bank_name":"Ziraat Bankası",/,
    );
    expect(JSON.parse(deposited ?? "")).toMatchObject({
      success: true,
      assigned_iban: "TR330006100519786457841326",
    });
    expect(JSON.parse(queried ?? "")).toMatchObject({
      success: true,
      status: "pending",
      data: { reference: "ORD-1", user_id: "43", amount: 150, type: "deposit", method: "fast" },
    });
    // The server has no PAYMENT_PAGE_URL: the relative payment_url is printed joined to the base URL.
    expect(hosted).toMatch(new RegExp(`^${server.url.replaceAll(".", "\\.")}/t/[\\w-]+$`));
    const page = await fetch(hosted ?? "");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="application/json" id="status">{"status":"open"');
  });

  it.each([
    ["deposit.mjs", 1],
    ["hosted.mjs", 4],
  ])("%s says what is missing, not a stack trace: no variables, then no server", async (file, block) => {
    writeFileSync(join(dir, file), blocks[block]?.code ?? "");
    const bare = Object.fromEntries(
      Object.keys(process.env)
        .filter((k) => k.startsWith("PAYINTAKE_"))
        .map((k) => [k, ""]),
    );
    const unset = await run(process.execPath, [join(dir, file)], bare);
    expect(unset.status).toBe(1);
    expect(unset.stderr.trim()).toBe(
      "Set PAYINTAKE_URL, PAYINTAKE_API_KEY and PAYINTAKE_SECRET_KEY first (the export and eval lines above).",
    );
    const stopped = await run(process.execPath, [join(dir, file)], {
      // A privileged port nothing listens on (fetch itself refuses some, such as 9, before connecting;
      // a high one could be any test server's).
      PAYINTAKE_URL: "http://127.0.0.1:3",
      PAYINTAKE_API_KEY: "k",
      PAYINTAKE_SECRET_KEY: "s",
    });
    expect(stopped.status).toBe(1);
    expect(stopped.stderr.trim()).toMatch(
      /^No answer from http:\/\/127\.0\.0\.1:3 \(ECONNREFUSED\): is the server running there\?$/,
    );
  });
});
