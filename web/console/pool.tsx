import { useState } from "preact/hooks";
import { isValidTurkishIban } from "../../src/domain/iban.js";
import type { ChannelListView as Channel } from "../../src/management/service.js";
import type { AccountView as Account } from "../../src/management/views.js";
import { api } from "./api";
import { IbanText } from "./copy";
import { breakerLabel, shownAmount, shownRange, typedAmount } from "./manage";
import {
  amountFieldsValid,
  amountInput,
  Field,
  formValue,
  isAdmin,
  listOf,
  Options,
  ShownOnce,
  useChange,
  useLoad,
  useShell,
} from "./ui";
import { fill } from "./words";

/** The account form's amount fields, checked before a save (amountFieldsValid). */
const AMOUNT_FIELDS = ["min", "max", "daily_cap"];

/** The account pool and the channels in front of it: health, ranges, caps, on and off. */
export function Pool() {
  const { t, me } = useShell();
  const [data, reload] = useLoad(
    async () => {
      const [channels, accounts] = await Promise.all([
        api<Channel[]>("GET", "/channels"),
        api<Account[]>("GET", "/accounts"),
      ]);
      const c = listOf<Channel>(channels);
      const a = listOf<Account>(accounts);
      return c && a ? { channels: c, accounts: a } : undefined;
    },
    "pool",
    10_000,
  );
  const [editing, setEditing] = useState<number | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const admin = isAdmin(me.role);

  const change = useChange(reload);
  async function call(method: string, path: string, body: unknown, form?: HTMLFormElement) {
    const res = await change<{ secret?: string }>(method, path, body, form);
    if (!res.ok) return;
    if (res.json.secret) setSecret(res.json.secret);
    setEditing(null);
  }
  // Switching off changes where new deposits go: asked first, naming what stops. Switching on is not.
  function setChannelActive(c: Channel, active: boolean) {
    if (!active && !confirm(fill(t("mgmtConfirmChannelOff"), { code: c.code }))) return;
    void call("PATCH", `/channels/${c.code}`, { active });
  }
  function setAccountActive(a: Account, active: boolean) {
    if (!active && !confirm(fill(t("mgmtConfirmAccountOff"), { id: a.id, bank: a.bank_name }))) return;
    void call("PATCH", `/accounts/${a.id}`, { active });
  }

  return (
    <section id="pool">
      <h1>{t("channels")}</h1>
      {secret && <ShownOnce label={t("secretOnce")} value={secret} onClose={() => setSecret(null)} />}
      <ChannelsTable channels={data?.channels ?? []} admin={admin} setActive={setChannelActive} call={call} />
      {admin && <ChannelCreateForm call={call} />}

      <h1>{t("accounts")}</h1>
      <AccountsTable
        accounts={data?.accounts ?? []}
        channels={data?.channels ?? []}
        admin={admin}
        editing={editing}
        setEditing={setEditing}
        setActive={setAccountActive}
        call={call}
      />
      {admin && <AccountCreateForm channels={data?.channels ?? []} call={call} />}
    </section>
  );
}

/** Saves a change (the secret a channel's creation or rotation shows once) and closes the editor. */
type Call = (method: string, path: string, body: unknown, form?: HTMLFormElement) => Promise<void>;

const channelInput = (form: HTMLFormElement) => formValue(form, "channel") ?? null;
const codeIn = (channels: Channel[], id: number | null) => channels.find((c) => c.id === id)?.code ?? "";

function ChannelsTable(props: {
  channels: Channel[];
  admin: boolean;
  setActive(c: Channel, active: boolean): void;
  call: Call;
}) {
  const { t } = useShell();
  const { admin, setActive: setChannelActive, call } = props;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a narrow screen scrolls the table inside itself, and a viewer's rows hold nothing else the keyboard could scroll it by (WCAG 2.1.1)
    <table id="channels-table" tabIndex={0} aria-label={t("channels")}>
      <thead>
        <tr>
          <th>{t("code")}</th>
          <th>{t("kind")}</th>
          <th>{t("mgmtChannelUrl")}</th>
          <th>{t("timeout")}</th>
          <th>{t("breaker")}</th>
          <th>{t("status")}</th>
          <th>{t("actions")}</th>
        </tr>
      </thead>
      <tbody>
        {props.channels.map((c) => (
          <tr key={c.id} data-channel={c.code}>
            <td>{c.code}</td>
            <td>{c.kind === "manual" ? t("mgmtManual") : c.kind}</td>
            <td>{c.url}</td>
            <td>{c.timeout_ms}</td>
            <td>
              <span class={`health ${c.breaker}`}>{breakerLabel(c.breaker, t)}</span>
            </td>
            <td class="state">{c.active ? t("active") : t("inactive")}</td>
            <td class="actions">
              {admin && (
                <button type="button" class="secondary" onClick={() => setChannelActive(c, !c.active)}>
                  {c.active ? t("deactivate") : t("activate")}
                </button>
              )}{" "}
              {admin && c.kind === "http" && (
                <button
                  type="button"
                  class="danger rotate"
                  onClick={() => {
                    if (confirm(t("confirmRotate")))
                      void call("POST", `/channels/${c.code}/rotate-secret`, {});
                  }}
                >
                  {t("rotate")}
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ChannelCreateForm({ call }: { call: Call }) {
  const { t } = useShell();
  return (
    <form
      id="channel-create"
      class="panel form"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const kind = formValue(form, "kind") ?? "manual";
        call(
          "POST",
          "/channels",
          {
            code: formValue(form, "code") ?? "",
            kind,
            url: kind === "http" ? (formValue(form, "url") ?? null) : null,
            timeout_ms: Number(formValue(form, "timeout_ms") ?? 8000),
          },
          form,
        );
      }}
    >
      <Field label={t("code")}>
        <input name="code" required pattern="[A-Za-z0-9_\-]{1,20}" size={10} />
      </Field>
      <Field label={t("kind")}>
        <select name="kind">
          <option value="manual">{t("mgmtManual")}</option>
          <option value="http">http</option>
        </select>
      </Field>
      <Field label={t("mgmtChannelUrl")} wide>
        <input name="url" type="url" placeholder="https://" />
      </Field>
      <Field label={t("timeout")}>
        <input name="timeout_ms" type="number" min={100} max={20000} defaultValue={8000} size={6} />
      </Field>
      <button type="submit">{t("create")}</button>
    </form>
  );
}

function AccountsTable(props: {
  accounts: Account[];
  channels: Channel[];
  admin: boolean;
  editing: number | null;
  setEditing(id: number | null): void;
  setActive(a: Account, active: boolean): void;
  call: Call;
}) {
  const { t } = useShell();
  const { admin, editing, setEditing, setActive: setAccountActive, call } = props;
  const codeOf = (id: number | null) => codeIn(props.channels, id);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: as the channels' table, a viewer scrolls it by keyboard on a narrow screen
    <table id="accounts" tabIndex={0} aria-label={t("accounts")}>
      <thead>
        <tr>
          <th>#</th>
          <th>{t("bank")}</th>
          <th>{t("limits")}</th>
          <th>{t("dailyCap")}</th>
          <th>{t("channel")}</th>
          <th>{t("status")}</th>
          <th>{t("actions")}</th>
        </tr>
      </thead>
      <tbody>
        {props.accounts.map((a) =>
          editing === a.id ? (
            <tr key={a.id} data-account={a.id}>
              <td colSpan={7}>
                <form
                  class="inline-form"
                  onSubmit={(e) => {
                    e.preventDefault();
                    const form = e.currentTarget;
                    if (!amountFieldsValid(form, AMOUNT_FIELDS, t("badAmount"))) return;
                    const wanted: Record<string, string | null> = {
                      min: amountInput(formValue(form, "min")) ?? null,
                      max: amountInput(formValue(form, "max")) ?? null,
                      daily_cap: amountInput(formValue(form, "daily_cap")) ?? null,
                      bank_code: formValue(form, "bank_code") ?? null,
                    };
                    const now: Record<string, string | null> = {
                      min: a.min,
                      max: a.max,
                      daily_cap: a.daily_cap,
                      bank_code: a.bank_code,
                    };
                    // Only what changed, so a save never undoes another operator's change.
                    const changes: Record<string, string | null> = Object.fromEntries(
                      Object.entries(wanted).filter(([k, v]) => now[k] !== v),
                    );
                    const channel = channelInput(form);
                    if (channel !== (codeOf(a.channel_id) || null)) changes.channel = channel;
                    call("PATCH", `/accounts/${a.id}`, changes);
                  }}
                >
                  #{a.id} {a.bank_name}{" "}
                  <AccountFields account={a} channels={props.channels} channelCode={codeOf(a.channel_id)} />
                  <button type="submit">{t("save")}</button>{" "}
                  <button type="button" class="link" onClick={() => setEditing(null)}>
                    {t("cancel")}
                  </button>
                </form>
              </td>
            </tr>
          ) : (
            <tr key={a.id} data-account={a.id} class={a.sandbox ? "sandbox" : ""}>
              <td>{a.id}</td>
              <td>
                {a.bank_name} {a.bank_code && <span class="sub">({a.bank_code})</span>}{" "}
                {a.sandbox && <span class="tag">{t("mgmtSandboxTag")}</span>}
                <div class="sub">
                  {a.holder_name} · <IbanText iban={a.iban} />
                </div>
              </td>
              <td class="limits">{shownRange(a.min, a.max, t)}</td>
              <td class="daily-cap">{shownAmount(a.daily_cap)}</td>
              <td>{codeOf(a.channel_id) || t("mgmtManual")}</td>
              <td class="state">{a.active ? t("active") : t("inactive")}</td>
              <td class="actions">
                {admin && (
                  <>
                    <button
                      type="button"
                      class="toggle secondary"
                      onClick={() => setAccountActive(a, !a.active)}
                    >
                      {a.active ? t("deactivate") : t("activate")}
                    </button>{" "}
                    <button type="button" class="link" onClick={() => setEditing(a.id)}>
                      {t("edit")}
                    </button>
                  </>
                )}
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function AccountCreateForm(props: { channels: Channel[]; call: Call }) {
  const { t } = useShell();
  const { call } = props;
  return (
    <form
      id="account-create"
      class="panel form"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        if (!amountFieldsValid(form, AMOUNT_FIELDS, t("badAmount"))) return;
        // Payers send money to it: said here, in the operator's language, before the server refuses it.
        const iban = form.elements.namedItem("iban") as HTMLInputElement;
        iban.setCustomValidity(isValidTurkishIban(iban.value) ? "" : t("badAccountIban"));
        if (!iban.reportValidity()) {
          iban.addEventListener("input", () => iban.setCustomValidity(""), { once: true });
          return;
        }
        call(
          "POST",
          "/accounts",
          {
            bank_name: formValue(form, "bank_name") ?? "",
            holder_name: formValue(form, "holder_name") ?? "",
            iban: formValue(form, "iban") ?? "",
            min: amountInput(formValue(form, "min")) ?? null,
            max: amountInput(formValue(form, "max")) ?? null,
            daily_cap: amountInput(formValue(form, "daily_cap")) ?? null,
            bank_code: formValue(form, "bank_code") ?? null,
            channel: channelInput(form),
          },
          form,
        );
      }}
    >
      <Field label={t("bank")}>
        <input name="bank_name" required maxLength={200} />
      </Field>
      <Field label={t("holder")}>
        <input name="holder_name" required maxLength={200} />
      </Field>
      <Field label="IBAN" wide>
        <input name="iban" required maxLength={64} />
      </Field>
      <AccountFields channels={props.channels} channelCode="" />
      <button type="submit">{t("create")}</button>
    </form>
  );
}

function AccountFields(props: { account?: Account; channels: Channel[]; channelCode: string }) {
  const { t } = useShell();
  const a = props.account;
  return (
    <>
      <Field label={t("min")}>
        <input name="min" inputMode="decimal" size={9} defaultValue={typedAmount(a?.min ?? null)} />
      </Field>
      <Field label={t("max")}>
        <input name="max" inputMode="decimal" size={9} defaultValue={typedAmount(a?.max ?? null)} />
      </Field>
      <Field label={t("dailyCap")}>
        <input
          name="daily_cap"
          inputMode="decimal"
          size={10}
          defaultValue={typedAmount(a?.daily_cap ?? null)}
        />
      </Field>
      <Field label={t("bankCode")}>
        <input name="bank_code" size={8} defaultValue={a?.bank_code ?? ""} />
      </Field>
      <Field label={t("channel")}>
        <Options
          name="channel"
          chosen={props.channelCode}
          values={props.channels.map((c) => c.code)}
          any={t("mgmtManual")}
        />
      </Field>
    </>
  );
}
