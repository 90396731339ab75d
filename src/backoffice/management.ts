import { randomBytes } from "node:crypto";
import type { Updateable } from "kysely";
import { sealContext } from "../crypto/seal-context.js";
import type { SecretBox } from "../crypto/secret-box.js";
import type { TargetCheck } from "../net/callback-target.js";
import type { Repositories } from "../store/index.js";
import type { FirmTable, PaymentAccountTable, ProviderTable } from "../store/schema.js";
import { accountView, channelView, firmView, providerView } from "./views.js";

/**
 * Managing what deposits run on: providers, firms, channels, accounts and bans. No HTTP here; the
 * admin API and the console both call it with the actor who asked. Every change is written with
 * its audit row in one database transaction (store/audited.ts).
 */
export interface Refusal {
  ok: false;
  status: 400 | 403 | 404 | 409;
  message: string;
}
export type Outcome<T> = { ok: true; value: T } | Refusal;

/** Who changed something through the admin API (CLI and automation, one shared token). */
export const ADMIN_API = "admin-api";

export const notFound = (what: string): Refusal => ({ ok: false, status: 404, message: `${what} not found` });
export const bad = (message: string): Refusal => ({ ok: false, status: 400, message });

export interface ManagementDeps {
  repos: Repositories;
  box: SecretBox;
  callbackTargetAllowed: TargetCheck;
  /** Channels must be https (off only with PAYINTAKE_ALLOW_PRIVATE_CALLBACKS, for development). */
  httpsChannelsOnly: boolean;
  /** Called after any change a cached firm lookup might hold, so this instance sees it at once. */
  firmsChanged(): void;
  /** Called after any change to the payment accounts, so this instance routes by it at once. */
  accountsChanged(): void;
  /** Breaker state per channel id on this instance. */
  channelHealth(): ReadonlyMap<number, string>;
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
  sandbox: boolean;
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
  /** The channel's code; none = the account itself (manual). */
  channel?: string | null;
  bank_code?: string | null;
  daily_cap?: number | null;
}

export interface AccountChanges {
  active?: boolean;
  min_amount?: number | null;
  max_amount?: number | null;
  channel?: string | null;
  bank_code?: string | null;
  daily_cap?: number | null;
}

export interface ChannelInput {
  code: string;
  kind: "manual" | "http";
  url: string | null;
  timeout_ms: number;
}

const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);
const PROVIDER_URL_KINDS = "only platform and aggregator providers have a central callback URL";

export function createManagement(deps: ManagementDeps) {
  const { repos, box } = deps;
  const audit = (actor: string, action: string) => ({ actor, action, at: deps.now() });

  /** A channel code to its id: null for none, undefined when no such channel exists. */
  async function channelId(code: string | null | undefined): Promise<number | null | undefined> {
    if (code === null || code === undefined) return null;
    return (await repos.channels.byCode(code))?.id;
  }

  async function checkCallbackTarget(
    url: string | null | undefined,
    what = "Callback URL",
  ): Promise<Refusal | null> {
    if (url === null || url === undefined) return null;
    if (!(await deps.callbackTargetAllowed(url))) return bad(`${what} is not allowed`);
    return null;
  }

  /**
   * A channel's URL: public, like callbacks (net/guarded-agent.ts checks again at every connection),
   * and https, because asks carry payers' names and accounts' IBANs.
   */
  async function checkChannelUrl(url: string | null | undefined): Promise<Refusal | null> {
    if (url && deps.httpsChannelsOnly && !url.toLowerCase().startsWith("https:")) {
      return bad("Channel URL must use https (asks carry payers' names and IBANs)");
    }
    return checkCallbackTarget(url, "Channel URL");
  }

  function checkRange(min: number | null | undefined, max: number | null | undefined): Refusal | null {
    if (min != null && max != null && min > max) return bad("the minimum must not exceed the maximum");
    return null;
  }

  return {
    async createProvider(input: ProviderInput, actor = ADMIN_API) {
      if (input.callback_url !== null && input.kind === "direct") return bad(PROVIDER_URL_KINDS);
      const refused = await checkCallbackTarget(input.callback_url);
      if (refused) return refused;
      const now = deps.now();
      const row = await repos.audited.insert(
        "providers",
        { ...input, created_at: now, updated_at: now },
        audit(actor, "provider.create"),
      );
      return { ok: true as const, value: providerView(row) };
    },

    async listProviders() {
      return (await repos.firms.listProviders()).map(providerView);
    },

    async updateProvider(
      id: number,
      changes: Partial<Omit<ProviderInput, "kind" | "name">>,
      actor = ADMIN_API,
    ) {
      const existing = await repos.firms.getProvider(id);
      if (!existing) return notFound("provider");
      if (changes.callback_url && existing.kind === "direct") return bad(PROVIDER_URL_KINDS);
      const refused = await checkCallbackTarget(changes.callback_url);
      if (refused) return refused;
      const row = await repos.audited.update(
        "providers",
        id,
        { ...changes, updated_at: deps.now() },
        audit(actor, "provider.update"),
      );
      deps.firmsChanged();
      return row ? { ok: true as const, value: providerView(row) } : notFound("provider");
    },

    async createFirm(input: FirmInput, actor = ADMIN_API) {
      if (input.provider_id !== null && !(await repos.firms.getProvider(input.provider_id))) {
        return notFound("provider");
      }
      const refused =
        (await checkCallbackTarget(input.webhook_url)) ?? checkRange(input.deposit_min, input.deposit_max);
      if (refused) return refused;
      const secret = newSecretKey();
      const now = deps.now();
      const row = await repos.audited.insert(
        "firms",
        {
          name: input.name,
          provider_id: input.provider_id,
          api_key: newApiKey(),
          // Sealed for the firm's id, which the insert assigns: '' until then, in one transaction.
          secret_sealed: "",
          webhook_url: input.webhook_url,
          legacy_http: input.legacy_http ? 1 : 0,
          callback_middle_name: input.callback_middle_name ? 1 : 0,
          deposit_min: input.deposit_min,
          deposit_max: input.deposit_max,
          deposits_open: 1,
          withdrawals_open: 1,
          active: 1,
          rate_limit_per_second: input.rate_limit_per_second,
          sandbox: input.sandbox ? 1 : 0,
          created_at: now,
          updated_at: now,
        },
        audit(actor, "firm.create"),
        (id) => ({ secret_sealed: box.seal(secret, sealContext.firmSecret(id)) }),
      );
      // The only moment besides rotation that the secret leaves the store in clear.
      return { ok: true as const, value: { ...firmView(row), secret_key: secret } };
    },

    /** Each firm's id and name only: for screens that show transactions (no keys, no settings). */
    async firmNames() {
      return (await repos.firms.list()).map((f) => ({ id: f.id, name: f.name }));
    },
    async listFirms() {
      return (await repos.firms.list()).map(firmView);
    },

    async getFirm(id: number) {
      const row = await repos.firms.get(id);
      return row ? { ok: true as const, value: firmView(row) } : notFound("firm");
    },

    async updateFirm(id: number, changes: FirmChanges, actor = ADMIN_API) {
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
      const row = await repos.audited.updateChecked("firms", id, update, audit(actor, "firm.update"));
      // Another change to the limits landed between the check above and this write.
      if (row === "refused") return bad("the minimum must not exceed the maximum");
      deps.firmsChanged();
      return row ? { ok: true as const, value: firmView(row) } : notFound("firm");
    },

    async rotateSecret(id: number, actor = ADMIN_API) {
      const secret = newSecretKey();
      const row = await repos.audited.update(
        "firms",
        id,
        { secret_sealed: box.seal(secret, sealContext.firmSecret(id)), updated_at: deps.now() },
        audit(actor, "firm.rotate_secret"),
      );
      deps.firmsChanged();
      return row ? { ok: true as const, value: { ...firmView(row), secret_key: secret } } : notFound("firm");
    },

    async addAccount(input: AccountInput, actor = ADMIN_API) {
      const refused = checkRange(input.min_amount, input.max_amount);
      if (refused) return refused;
      const channel = await channelId(input.channel);
      if (channel === undefined) return notFound("channel");
      const now = deps.now();
      const { channel: _code, bank_code, ...rest } = input;
      const row = await repos.audited.insert(
        "payment_accounts",
        {
          ...rest,
          channel_id: channel,
          bank_code: bank_code?.toUpperCase() ?? null,
          daily_cap: rest.daily_cap ?? null,
          active: 1,
          created_at: now,
          updated_at: now,
        },
        audit(actor, "account.create"),
      );
      deps.accountsChanged();
      return { ok: true as const, value: accountView(row) };
    },

    async updateAccount(id: number, changes: AccountChanges, actor = ADMIN_API) {
      const existing = await repos.accounts.get(id);
      if (!existing) return notFound("account");
      const channel = changes.channel === undefined ? existing.channel_id : await channelId(changes.channel);
      if (channel === undefined) return notFound("channel");
      const refused = checkRange(
        changes.min_amount === undefined ? existing.min_amount : changes.min_amount,
        changes.max_amount === undefined ? existing.max_amount : changes.max_amount,
      );
      if (refused) return refused;
      const update: Updateable<PaymentAccountTable> = {
        active: flag(changes.active),
        min_amount: changes.min_amount,
        max_amount: changes.max_amount,
        channel_id: channel,
        daily_cap: changes.daily_cap,
        bank_code: changes.bank_code === undefined ? undefined : (changes.bank_code?.toUpperCase() ?? null),
        updated_at: deps.now(),
      };
      const row = await repos.audited.updateChecked(
        "payment_accounts",
        id,
        update,
        audit(actor, "account.update"),
      );
      if (row === "refused") return bad("the minimum must not exceed the maximum");
      deps.accountsChanged();
      return row ? { ok: true as const, value: accountView(row) } : notFound("account");
    },

    async listAccounts() {
      return (await repos.accounts.list()).map(accountView);
    },

    /** An http channel gets a secret to verify our asks with, shown here only (and never logged). */
    async createChannel(input: ChannelInput, actor = ADMIN_API) {
      if (input.kind === "http" && input.url === null) return bad("an http channel needs --url");
      const refused = input.kind === "http" ? await checkChannelUrl(input.url) : null;
      if (refused) return refused;
      if (await repos.channels.byCode(input.code)) return bad(`channel ${input.code} exists already`);
      const now = deps.now();
      const secret = input.kind === "http" ? newSecretKey() : null;
      const row = await repos.audited.insertUnique(
        "channels",
        {
          ...input,
          url: input.kind === "http" ? input.url : null,
          // Sealed for the channel's id, which the insert assigns: '' until then, in one transaction.
          secret_sealed: secret === null ? null : "",
          active: 1,
          created_at: now,
          updated_at: now,
        },
        audit(actor, "channel.create"),
        secret === null
          ? undefined
          : (id) => ({ secret_sealed: box.seal(secret, sealContext.channelSecret(id)) }),
      );
      if (!row) return bad(`channel ${input.code} exists already`);
      deps.accountsChanged();
      return { ok: true as const, value: { ...channelView(row), ...(secret ? { secret } : {}) } };
    },

    async updateChannel(
      code: string,
      changes: { url?: string; timeout_ms?: number; active?: boolean },
      actor = ADMIN_API,
    ) {
      const existing = await repos.channels.byCode(code);
      if (!existing) return notFound("channel");
      if (changes.url !== undefined && existing.kind !== "http") return bad("only an http channel has a URL");
      const refused = await checkChannelUrl(changes.url);
      if (refused) return refused;
      const row = await repos.audited.update(
        "channels",
        existing.id,
        {
          url: changes.url,
          timeout_ms: changes.timeout_ms,
          active: flag(changes.active),
          updated_at: deps.now(),
        },
        audit(actor, "channel.update"),
      );
      deps.accountsChanged();
      return row ? { ok: true as const, value: channelView(row) } : notFound("channel");
    },

    /** A new secret for an http channel, shown here only; the old one stops signing asks at once. */
    async rotateChannelSecret(code: string, actor = ADMIN_API) {
      const existing = await repos.channels.byCode(code);
      if (!existing) return notFound("channel");
      if (existing.kind !== "http") return bad("only an http channel has a secret");
      const secret = newSecretKey();
      const row = await repos.audited.update(
        "channels",
        existing.id,
        { secret_sealed: box.seal(secret, sealContext.channelSecret(existing.id)), updated_at: deps.now() },
        audit(actor, "channel.rotate_secret"),
      );
      // The account pool carries the channels' secrets: reloaded here and on every instance.
      deps.accountsChanged();
      return row ? { ok: true as const, value: { ...channelView(row), secret } } : notFound("channel");
    },

    async listChannels() {
      const health = deps.channelHealth();
      return (await repos.channels.list()).map((c) => ({
        ...channelView(c),
        breaker: health.get(c.id) ?? "closed",
      }));
    },

    async banUser(firmId: number, userId: string, banned: boolean, actor = ADMIN_API) {
      if (!(await repos.firms.get(firmId))) return notFound("firm");
      await repos.audited.ban(firmId, userId, banned, audit(actor, banned ? "ban.add" : "ban.remove"));
      return { ok: true as const, value: { firm_id: firmId, user_id: userId, banned } };
    },

    async listBans(firmId: number) {
      if (!(await repos.firms.get(firmId))) return notFound("firm");
      const rows = await repos.firms.bans(firmId);
      return {
        ok: true as const,
        value: rows.map((b) => ({ user_id: b.user_id, since: new Date(b.created_at).toISOString() })),
      };
    },
  };
}

export type Management = ReturnType<typeof createManagement>;
