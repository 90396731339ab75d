import { notFound } from "../domain/refusal.js";
import {
  type AccountChanges,
  type AccountInput,
  addAccount,
  type ChannelInput,
  createChannel,
  rotateChannelSecret,
  updateAccount,
  updateChannel,
} from "./accounts.js";
import { ADMIN_API, auditEntry, type ManagementDeps } from "./checks.js";
import {
  createFirm,
  createProvider,
  type FirmChanges,
  type FirmInput,
  moveCallbacks,
  type ProviderInput,
  rotateSecret,
  updateFirm,
  updateProvider,
} from "./firms.js";
import { accountView, channelView, firmView, providerView } from "./views.js";

export type { AccountChanges, AccountInput, ChannelInput } from "./accounts.js";
export {
  ADMIN_API,
  type ManagementDeps,
  newApiKey,
  newSecretKey,
  type Outcome,
  type Refusal,
} from "./checks.js";
export type { FirmChanges, FirmInput, ProviderInput } from "./firms.js";

/**
 * Managing what deposits run on: providers and firms (firms.ts), channels and accounts
 * (accounts.ts), and bans. No HTTP here; the admin API and the console both call it with
 * the actor who asked. Every change is written with its audit row in one database transaction
 * (store/audited.ts).
 */
export function createManagement(deps: ManagementDeps) {
  const { repos } = deps;
  return {
    createProvider: (input: ProviderInput, actor = ADMIN_API) => createProvider(deps, input, actor),

    async listProviders() {
      return (await repos.firms.listProviders()).map(providerView);
    },

    updateProvider: (id: number, changes: Partial<Omit<ProviderInput, "kind" | "name">>, actor = ADMIN_API) =>
      updateProvider(deps, id, changes, actor),
    createFirm: (input: FirmInput, actor = ADMIN_API) => createFirm(deps, input, actor),

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

    updateFirm: (id: number, changes: FirmChanges, actor = ADMIN_API) => updateFirm(deps, id, changes, actor),
    rotateSecret: (id: number, actor = ADMIN_API) => rotateSecret(deps, id, actor),
    moveCallbacks: (id: number, from: string, actor = ADMIN_API) => moveCallbacks(deps, id, from, actor),
    addAccount: (input: AccountInput, actor = ADMIN_API) => addAccount(deps, input, actor),
    updateAccount: (id: number, changes: AccountChanges, actor = ADMIN_API) =>
      updateAccount(deps, id, changes, actor),

    async listAccounts() {
      return (await repos.accounts.list()).map(accountView);
    },

    createChannel: (input: ChannelInput, actor = ADMIN_API) => createChannel(deps, input, actor),
    updateChannel: (
      code: string,
      changes: { url?: string; timeout_ms?: number; active?: boolean },
      actor = ADMIN_API,
    ) => updateChannel(deps, code, changes, actor),
    rotateChannelSecret: (code: string, actor = ADMIN_API) => rotateChannelSecret(deps, code, actor),

    async listChannels() {
      const health = deps.channelHealth();
      return (await repos.channels.list()).map((c) => ({
        ...channelView(c),
        breaker: health.get(c.id) ?? "closed",
      }));
    },

    async banUser(firmId: number, userId: string, banned: boolean, actor = ADMIN_API) {
      if (!(await repos.firms.get(firmId))) return notFound("firm");
      await repos.audited.ban(
        firmId,
        userId,
        banned,
        auditEntry(deps, actor, banned ? "ban.add" : "ban.remove"),
      );
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
/** A firm's name by its id, for the screens that list transactions (`firmNames`). */
export type FirmNameView = Awaited<ReturnType<Management["firmNames"]>>[number];
/** A channel as the channel list answers it: with its breaker on this instance (`listChannels`). */
export type ChannelListView = Awaited<ReturnType<Management["listChannels"]>>[number];
