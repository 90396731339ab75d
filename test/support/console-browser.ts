import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import type { TestServer } from "./harness.js";

/** The console's test operators: `<role>@ops.example`, password `<role>-password-123`. */
export type ConsoleRole = "admin" | "operator" | "viewer";

export async function createConsoleOperators(
  server: TestServer,
  roles: readonly ConsoleRole[] = ["admin", "operator"],
): Promise<void> {
  for (const role of roles) {
    const res = await server.admin("POST", "/admin/v1/operators", {
      email: `${role}@ops.example`,
      role,
      password: `${role}-password-123`,
    });
    if (res.status !== 201 && res.status !== 200) {
      throw new Error(`operator ${role} answered ${res.status}: ${JSON.stringify(res.json)}`);
    }
  }
}

export interface SignInOptions {
  viewport?: { width: number; height: number };
  /** The console's address to open, "/ops" unless given (a deep link such as "/ops#/transactions/7"). */
  path?: string;
  /** Collects every request to another origin and every page error: a test expects it empty. */
  strays?: string[];
  /** How long to wait for the signed-in console, in ms. */
  timeout?: number;
}

/** A new browser context signed in to the console as `role`, once its first screen is shown. */
export async function signInConsole(
  browser: Browser,
  server: TestServer,
  role: ConsoleRole,
  opts: SignInOptions = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 800 } });
  const page = await context.newPage();
  const strays = opts.strays;
  if (strays) {
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) strays.push(r.url());
    });
    page.on("pageerror", (e) => strays.push(`page error: ${e.message}`));
  }
  const wait = { timeout: opts.timeout ?? 15_000 };
  await page.goto(`${server.url}${opts.path ?? "/ops"}`);
  await expect.poll(() => page.locator("#login").isVisible(), wait).toBe(true);
  await page.fill("#email", `${role}@ops.example`);
  await page.fill("#password", `${role}-password-123`);
  await page.click('#login button[type="submit"]');
  await expect.poll(() => page.locator("#login").isVisible(), wait).toBe(false);
  if (opts.path === undefined) await expect.poll(() => page.locator("#queue").isVisible(), wait).toBe(true);
  return page;
}
