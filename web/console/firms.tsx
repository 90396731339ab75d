import { useState } from "preact/hooks";
import { isPlainHttpLiveWebhook } from "../../src/domain/firm.js";
import { api } from "./api";
import { refusalIn } from "./decision-text";
import { type Firm, FirmForm } from "./firm-form";
import { shownAmount, shownRange } from "./manage";
import {
  canDecide,
  Field,
  formChecked,
  formValue,
  isAdmin,
  listOf,
  ShownOnce,
  useLoad,
  useShell,
  when,
} from "./ui";

export type { Firm };

/**
 * A firm's bounds of pending deposits as the list shows them: `1000 · 2.000.000,00 TL`, and its
 * share of each account's cap when it has one (`· %30`).
 */
function shownBounds(f: Firm, t: (key: "mgmtNoBound") => string): string {
  const share = f.max_cap_share === null ? "" : ` · %${f.max_cap_share}`;
  if (f.max_pending_count === null && f.max_pending_amount === null) return `${t("mgmtNoBound")}${share}`;
  const count = f.max_pending_count === null ? "—" : String(f.max_pending_count);
  return `${count} · ${shownAmount(f.max_pending_amount)}${share}`;
}

/** Firms: create (the secret is shown once), edit settings and limits, rotate the secret, bans. */
export function Firms({ id }: { id?: number }) {
  const { t, me, notify } = useShell();
  const [firms, reload] = useLoad(async () => listOf<Firm>(await api("GET", "/firms")), "firms");
  const [secret, setSecret] = useState<string | null>(null);

  async function create(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const provider = formValue(form, "provider_id");
    const res = await api<Firm & { secret_key: string }>("POST", "/firms", {
      name: formValue(form, "name") ?? "",
      display_name: formValue(form, "display_name") ?? null,
      webhook_url: formValue(form, "webhook_url") ?? null,
      provider_id: provider === undefined ? null : Number(provider),
      sandbox: formChecked(form, "sandbox"),
    });
    if (!res.ok) return notify(refusalIn(res.json, res.status), true);
    form.reset();
    setSecret(`${res.json.name} · ${res.json.api_key} · ${res.json.secret_key}`);
    // One message at a time: a live firm's plain-http webhook is said with the save, as a warning.
    const plainHttp = isPlainHttpLiveWebhook(res.json.sandbox, res.json.webhook_url);
    notify(`#${res.json.id}: ${t("saved")}${plainHttp ? ` ${t("mgmtPlainHttpWebhook")}` : ""}`, plainHttp);
    reload();
  }
  async function rotate(f: Firm) {
    if (!confirm(t("confirmRotate"))) return;
    const res = await api<{ secret_key: string }>("POST", `/firms/${f.id}/rotate-secret`);
    if (!res.ok) return notify(refusalIn(res.json, res.status), true);
    setSecret(`${f.name} · ${f.api_key} · ${res.json.secret_key}`);
    reload();
  }

  const selected = firms?.find((f) => f.id === id);
  return (
    <section id="firms-page">
      <h1>{t("firms")}</h1>
      {secret && <ShownOnce label={t("secretOnce")} value={secret} onClose={() => setSecret(null)} />}
      <table id="firms">
        <thead>
          <tr>
            <th>#</th>
            <th>{t("name")}</th>
            <th>{t("mgmtApiKey")}</th>
            <th>{t("depositsOpen")}</th>
            <th>{t("withdrawalsOpen")}</th>
            <th>{t("mgmtDepositLimits")}</th>
            <th>{t("mgmtPendingBounds")}</th>
            <th>{t("status")}</th>
            <th>{t("actions")}</th>
          </tr>
        </thead>
        <tbody>
          {(firms ?? []).map((f) => (
            <tr key={f.id} data-firm={f.id} class={f.id === id ? "selected" : ""}>
              <td>{f.id}</td>
              <td>
                {f.name} {f.sandbox && <span class="tag">{t("mgmtSandboxTag")}</span>}
                {isPlainHttpLiveWebhook(f.sandbox, f.webhook_url) && (
                  <span class="tag plain-http" title={t("mgmtPlainHttpWebhook")}>
                    {t("mgmtPlainHttpTag")}
                  </span>
                )}
              </td>
              <td>
                <code>{f.api_key}</code>
              </td>
              <td>{t(f.deposits)}</td>
              <td>{t(f.withdrawals)}</td>
              <td class="limits">{shownRange(f.deposit_min, f.deposit_max, t)}</td>
              <td class="pending-bounds">{shownBounds(f, t)}</td>
              <td class="state">{f.active ? t("active") : t("inactive")}</td>
              <td class="actions">
                <a class="button secondary" href={`#/firms/${f.id}`}>
                  {isAdmin(me.role) ? t("edit") : t("bans")}
                </a>{" "}
                {isAdmin(me.role) && (
                  <button type="button" class="rotate danger" onClick={() => rotate(f)}>
                    {t("rotate")}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {selected && isAdmin(me.role) && <FirmForm key={selected.id} firm={selected} saved={reload} />}
      {selected && <Bans firm={selected} />}
      {isAdmin(me.role) && (
        <form id="firm-create" class="panel form" onSubmit={create}>
          <h2>{t("create")}</h2>
          <Field label={t("name")}>
            <input name="name" required maxLength={200} />
          </Field>
          <Field label={t("mgmtDisplayName")}>
            <input name="display_name" maxLength={100} />
          </Field>
          <Field label={t("mgmtWebhook")} wide>
            <input name="webhook_url" type="url" placeholder="https://" />
          </Field>
          <Field label={t("mgmtProvider")}>
            <ProviderChoice />
          </Field>
          <label class="inline">
            <input type="checkbox" name="sandbox" /> {t("sandboxFirm")}
          </label>
          <button type="submit">{t("create")}</button>
        </form>
      )}
      {!isAdmin(me.role) && !canDecide(me.role) && <p class="help">{t("notAllowed")}</p>}
    </section>
  );
}

function Bans({ firm }: { firm: Firm }) {
  const { t, lang, me, notify } = useShell();
  const [bans, reload] = useLoad(
    async () => listOf<{ user_id: string; since: string }>(await api("GET", `/firms/${firm.id}/bans`)),
    String(firm.id),
  );
  async function change(userId: string, ban: boolean) {
    const res = await api(ban ? "PUT" : "DELETE", `/firms/${firm.id}/bans`, { user_id: userId });
    notify(res.ok ? `${userId}: ${t("saved")}` : refusalIn(res.json, res.status), !res.ok);
    reload();
  }
  return (
    <div id="bans" class="panel">
      <h2>
        {t("bans")} · #{firm.id}
      </h2>
      <ul>
        {(bans ?? []).map((b) => (
          <li key={b.user_id} data-user={b.user_id}>
            <code>{b.user_id}</code> · {when(b.since, lang)}{" "}
            {canDecide(me.role) && (
              <button type="button" class="link" onClick={() => change(b.user_id, false)}>
                {t("unban")}
              </button>
            )}
          </li>
        ))}
      </ul>
      {canDecide(me.role) && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const user = formValue(form, "user_id");
            if (user) change(user, true).then(() => form.reset());
          }}
        >
          <input name="user_id" maxLength={50} placeholder="user_id" aria-label={t("mgmtUserId")} required />{" "}
          <button type="submit">{t("ban")}</button>
        </form>
      )}
    </div>
  );
}

/**
 * A new firm's provider, chosen by its name (an admin knows "Demo Payments", not "provider 3");
 * "none" leaves the firm without one, and its auto-cancel is the server's default.
 */
function ProviderChoice() {
  const { t } = useShell();
  const [providers] = useLoad(
    async () => listOf<{ id: number; name: string }>(await api("GET", "/providers")),
    "providers",
  );
  return (
    <select name="provider_id">
      <option value="">{t("mgmtNoProvider")}</option>
      {(providers ?? []).map((p) => (
        <option key={p.id} value={String(p.id)}>
          {p.name} (#{p.id})
        </option>
      ))}
    </select>
  );
}
