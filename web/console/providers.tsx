import { api } from "./api";
import { Field, formValue, isAdmin, listOf, useChange, useLoad, useShell } from "./ui";

interface Provider {
  id: number;
  name: string;
  kind: "direct" | "platform" | "aggregator";
  callback_url: string | null;
  auto_cancel_minutes: number;
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
      <table>
        <thead>
          <tr>
            <th>#</th>
            <th>{t("name")}</th>
            <th>{t("kind")}</th>
            <th>{t("callbackUrl")}</th>
            <th>{t("autoCancel")}</th>
            {admin && <th>{t("actions")}</th>}
          </tr>
        </thead>
        <tbody>
          {(providers ?? []).map((p) => (
            <tr key={p.id} data-provider={p.id}>
              <td>{p.id}</td>
              <td>{p.name}</td>
              <td>{p.kind}</td>
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
                        aria-label={t("callbackUrl")}
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
              <option>direct</option>
              <option>platform</option>
              <option>aggregator</option>
            </select>
          </Field>
          <Field label={t("callbackUrl")} wide>
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
