import { randomBytes } from "node:crypto";
import type { Updateable } from "kysely";
import type { SecretBox } from "../crypto/secret-box.js";
import type { TargetCheck } from "../net/callback-target.js";
import type { Repositories } from "../store/index.js";
import type { FirmTable, PaymentAccountTable, ProviderTable } from "../store/schema.js";
import { accountView, firmView, operatorTransactionView, providerView } from "./views.js";

/**
 * What operators can do, with no HTTP in it. Inputs arrive already shaped by the admin API's
 * schemas; the outcomes that are expected (unknown id, URL not allowed) come back as values.
 */
export interface Refusal {
  ok: false;
  status: 400 | 404;
  message: string;
}
export type Outcome<T> = { ok: true; value: T } | Refusal;

const notFound = (what: string): Refusal => ({ ok: false, status: 404, message: `${what} not found` });
const bad = (message: string): Refusal => ({ ok: false, status: 400, message });

export interface BackofficeDeps {
  repos: Repositories;
  box: SecretBox;
  callbackTargetAllowed: TargetCheck;
  /** Called after any change a cached firm lookup might hold, so this instance sees it at once. */
  firmsChanged(): void;
  /** Called after any change to the payment accounts, so this instance routes by it at once. */
  accountsChanged(): void;
  now(): number;
}

export const newApiKey = () => `pk_${randomBytes(18).toString("base64url")}`;
export const newSecretKey = () => `sk_${randomBytes(32).toString("base64url")}`;

export interface ProviderInput {
  name: string;
  kind: ProviderTable["kind"];
  callback_url: string | null;
  auto_cancel_minutes: number;
}

export interface FirmInput {
  name: string;
  provider_id: number | null;
  webhook_url: string | null;
  legacy_http: boolean;
  callback_middle_name: boolean;
  deposit_min: number | null;
  deposit_max: number | null;
  rate_limit_per_second: number;
}

export interface FirmChanges {
  deposits_open?: boolean;
  withdrawals_open?: boolean;
  active?: boolean;
  webhook_url?: string | null;
  legacy_http?: boolean;
  callback_middle_name?: boolean;
  deposit_min?: number | null;
  deposit_max?: number | null;
  rate_limit_per_second?: number;
}

export interface AccountInput {
  bank_name: string;
  holder_name: string;
  iban: string;
  min_amount: number | null;
  max_amount: number | null;
}

const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);

export function createBackoffice(deps: BackofficeDeps) {
  const { repos } = deps;

  async function checkCallbackTarget(url: string | null | undefined): Promise<Refusal | null> {
    if (url === null || url === undefined) return null;
    if (!(await deps.callbackTargetAllowed(url))) return bad("Callback URL is not allowed");
    return null;
  }

  function checkRange(min: number | null | undefined, max: number | null | undefined): Refusal | null {
    if (min != null && max != null && min > max) return bad("the minimum must not exceed the maximum");
    return null;
  }

  return {
    async createProvider(input: ProviderInput): Promise<Outcome<ReturnType<typeof providerView>>> {
      if (input.callback_url !== null && input.kind === "direct") {
        return bad("only platform and aggregator providers have a central callback URL");
      }
      const refused = await checkCallbackTarget(input.callback_url);
      if (refused) return refused;
      const now = deps.now();
      const row = await repos.firms.createProvider({ ...input, created_at: now, updated_at: now });
      return { ok: true, value: providerView(row) };
    },

    async listProviders() {
      return (await repos.firms.listProviders()).map(providerView);
    },

    async updateProvider(id: number, changes: Partial<Omit<ProviderInput, "kind" | "name">>) {
      const existing = await repos.firms.getProvider(id);
      if (!existing) return notFound("provider");
      if (changes.callback_url && existing.kind === "direct") {
        return bad("only platform and aggregator providers have a central callback URL");
      }
      const refused = await checkCallbackTarget(changes.callback_url);
      if (refused) return refused;
      const row = await repos.firms.updateProvider(id, { ...changes, updated_at: deps.now() });
      deps.firmsChanged();
      return row ? { ok: true as const, value: providerView(row) } : notFound("provider");
    },

    async createFirm(input: FirmInput) {
      if (input.provider_id !== null && !(await repos.firms.getProvider(input.provider_id))) {
        return notFound("provider");
      }
      const refused =
        (await checkCallbackTarget(input.webhook_url)) ?? checkRange(input.deposit_min, input.deposit_max);
      if (refused) return refused;
      const secret = newSecretKey();
      const now = deps.now();
      const row = await repos.firms.create({
        name: input.name,
        provider_id: input.provider_id,
        api_key: newApiKey(),
        secret_sealed: deps.box.seal(secret),
        webhook_url: input.webhook_url,
        legacy_http: input.legacy_http ? 1 : 0,
        callback_middle_name: input.callback_middle_name ? 1 : 0,
        deposit_min: input.deposit_min,
        deposit_max: input.deposit_max,
        deposits_open: 1,
        withdrawals_open: 1,
        active: 1,
        rate_limit_per_second: input.rate_limit_per_second,
        created_at: now,
        updated_at: now,
      });
      // The only moment besides rotation that the secret leaves the store in clear.
      return { ok: true as const, value: { ...firmView(row), secret_key: secret } };
    },

    async listFirms() {
      return (await repos.firms.list()).map(firmView);
    },

    async getFirm(id: number) {
      const row = await repos.firms.get(id);
      return row ? { ok: true as const, value: firmView(row) } : notFound("firm");
    },

    async updateFirm(id: number, changes: FirmChanges) {
      const existing = await repos.firms.get(id);
      if (!existing) return notFound("firm");
      const refused =
        (await checkCallbackTarget(changes.webhook_url)) ??
        checkRange(
          changes.deposit_min === undefined ? existing.deposit_min : changes.deposit_min,
          changes.deposit_max === undefined ? existing.deposit_max : changes.deposit_max,
        );
      if (refused) return refused;
      const update: Updateable<FirmTable> = {
        deposits_open: flag(changes.deposits_open),
        withdrawals_open: flag(changes.withdrawals_open),
        active: flag(changes.active),
        legacy_http: flag(changes.legacy_http),
        callback_middle_name: flag(changes.callback_middle_name),
        webhook_url: changes.webhook_url,
        deposit_min: changes.deposit_min,
        deposit_max: changes.deposit_max,
        rate_limit_per_second: changes.rate_limit_per_second,
        updated_at: deps.now(),
      };
      const row = await repos.firms.update(id, update);
      deps.firmsChanged();
      return row ? { ok: true as const, value: firmView(row) } : notFound("firm");
    },

    async rotateSecret(id: number) {
      const secret = newSecretKey();
      const row = await repos.firms.update(id, {
        secret_sealed: deps.box.seal(secret),
        updated_at: deps.now(),
      });
      deps.firmsChanged();
      return row ? { ok: true as const, value: { ...firmView(row), secret_key: secret } } : notFound("firm");
    },

    async addAccount(input: AccountInput) {
      const refused = checkRange(input.min_amount, input.max_amount);
      if (refused) return refused;
      const now = deps.now();
      const row = await repos.accounts.add({ ...input, active: 1, created_at: now, updated_at: now });
      deps.accountsChanged();
      return { ok: true as const, value: accountView(row) };
    },

    async updateAccount(
      id: number,
      changes: { active?: boolean; min_amount?: number | null; max_amount?: number | null },
    ) {
      const existing = await repos.accounts.get(id);
      if (!existing) return notFound("account");
      const refused = checkRange(
        changes.min_amount === undefined ? existing.min_amount : changes.min_amount,
        changes.max_amount === undefined ? existing.max_amount : changes.max_amount,
      );
      if (refused) return refused;
      const update: Updateable<PaymentAccountTable> = {
        active: flag(changes.active),
        min_amount: changes.min_amount,
        max_amount: changes.max_amount,
        updated_at: deps.now(),
      };
      const row = await repos.accounts.update(id, update);
      deps.accountsChanged();
      return row ? { ok: true as const, value: accountView(row) } : notFound("account");
    },

    async listAccounts() {
      return (await repos.accounts.list()).map(accountView);
    },

    async banUser(firmId: number, userId: string, banned: boolean) {
      if (!(await repos.firms.get(firmId))) return notFound("firm");
      if (banned) await repos.firms.ban(firmId, userId, deps.now());
      else await repos.firms.unban(firmId, userId);
      return { ok: true as const, value: { firm_id: firmId, user_id: userId, banned } };
    },

    async listTransactions(filter: {
      firmId?: number;
      status?: "pending" | "approved" | "rejected";
      limit?: number;
    }) {
      return (await repos.transactions.list(filter)).map(operatorTransactionView);
    },

    async showTransaction(id: number) {
      const row = await repos.transactions.get(id);
      return row ? { ok: true as const, value: operatorTransactionView(row) } : notFound("transaction");
    },
  };
}

export type Backoffice = ReturnType<typeof createBackoffice>;
