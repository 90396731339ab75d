import type { ProviderView as Provider } from "../../src/management/views.js";
import { api } from "./api";
import type { T } from "./i18n";
import { Field, formValue, isAdmin, listOf, useChange, useLoad, useShell } from "./ui";

const KINDS = ["direct", "platform", "aggregator"] as const;
type Kind = (typeof KINDS)[number];
const KIND_WORDS = {
  direct: "mgmtKindDirect",
  platform: "mgmtKindPlatform",
  aggregator: "mgmtKindAggregator",
} as const satisfies Record<Kind, string>;
/** A provider's kind in the console's language (the API's value stays the select's value); one unknown here, as it came. */
function kindLabel(kind: string, t: T): string {
  const key = KIND_WORDS[kind as Kind];
  return key ? t(key) : kind;
}

/** Providers: the auto-cancel time of their firms' deposits and, for platforms, one callback URL. */
export function Providers() {
  const { t, me } = useShell();
  const [providers, reload] = useLoad(
    async () => listOf<Provider>(await api("GET", "/providers")),
    "providers",
  );
  const admin = isAdmin(me.role);
  const call = useChange(reload);
  return (
    <section id="providers">
      <h1>{t("providers")}</h1>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: as the pool's tables, a viewer scrolls it by keyboard on a narrow screen */}
      <table tabIndex={0} aria-label={t("providers")}>
        <thead>
          <tr>
            <th>#</th>
            <th>{t("name")}</th>
            <th>{t("kind")}</th>
            <th>{t("mgmtCallbackUrl")}</th>
            <th>{t("autoCancel")}</th>
            {admin && <th>{t("actions")}</th>}
          </tr>
        </thead>
        <tbody>
          {(providers ?? []).map((p) => (
            <tr key={p.id} data-provider={p.id}>
              <td>{p.id}</td>
              <td>{p.name}</td>
              <td>{kindLabel(p.kind, t)}</td>
              {admin ? (
                <td colSpan={3}>
                  <form
                    class="inline-form"
                    onSubmit={(e) => {
                      e.preventDefault();
                      const form = e.currentTarget;
                      const url = formValue(form, "callback_url");
                      call("PATCH", `/providers/${p.id}`, {
                        auto_cancel_minutes: Number(formValue(form, "auto_cancel_minutes") ?? 0),
                        ...(p.kind === "direct" ? {} : { callback_url: url ?? null }),
                      });
                    }}
                  >
                    {p.kind !== "direct" && (
                      <input
                        name="callback_url"
                        type="url"
                        aria-label={t("mgmtCallbackUrl")}
                        defaultValue={p.callback_url ?? ""}
                      />
                    )}{" "}
                    <input
                      name="auto_cancel_minutes"
                      type="number"
                      min={0}
                      max={10080}
                      size={5}
                      aria-label={t("autoCancel")}
                      defaultValue={String(p.auto_cancel_minutes)}
                    />{" "}
                    <button type="submit">{t("save")}</button>
                  </form>
                </td>
              ) : (
                <>
                  <td>{p.callback_url ?? "—"}</td>
                  <td>{p.auto_cancel_minutes || "—"}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {admin && (
        <form
          class="panel form"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const kind = formValue(form, "kind") ?? "direct";
            call(
              "POST",
              "/providers",
              {
                name: formValue(form, "name") ?? "",
                kind,
                callback_url: kind === "direct" ? null : (formValue(form, "callback_url") ?? null),
                auto_cancel_minutes: Number(formValue(form, "auto_cancel_minutes") ?? 0),
              },
              form,
            );
          }}
        >
          <h2>{t("create")}</h2>
          <Field label={t("name")}>
            <input name="name" required maxLength={200} />
          </Field>
          <Field label={t("kind")}>
            <select name="kind">
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {kindLabel(k, t)}
                </option>
              ))}
            </select>
          </Field>
          <Field label={t("mgmtCallbackUrl")} wide>
            <input name="callback_url" type="url" placeholder="https://" />
          </Field>
          <Field label={t("autoCancel")}>
            <input name="auto_cancel_minutes" type="number" min={0} max={10080} defaultValue="0" size={5} />
          </Field>
          <button type="submit">{t("create")}</button>
        </form>
      )}
    </section>
  );
}
