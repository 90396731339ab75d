import { useEffect, useState } from "preact/hooks";
import type { OperatorListView as OperatorRow } from "../../src/operators/views.js";
import { api } from "./api";
import { refusalIn } from "./decision-text";
import { roleLabel } from "./manage";
import { Field, formValue, listOf, type Role, ShownOnce, useChange, useLoad, useShell } from "./ui";
import { fill } from "./words";

const ROLES: Role[] = ["viewer", "operator", "admin"];

/** Admins add operators (a one-time password is shown once), change roles, switch access off. */
export function Operators() {
  const { t, me } = useShell();
  const [rows, reload] = useLoad(
    async () => listOf<OperatorRow>(await api("GET", "/operators")),
    "operators",
  );
  const [once, setOnce] = useState<string | null>(null);
  const change = useChange(reload);
  async function call(method: string, path: string, body: unknown, form?: HTMLFormElement) {
    const res = await change<{ email: string; password?: string }>(method, path, body, form);
    if (res.ok && res.json.password) setOnce(`${res.json.email} · ${res.json.password}`);
    return res.ok;
  }
  return (
    <section id="operators">
      <h1>{t("operators")}</h1>
      {once && <ShownOnce label={t("passwordOnce")} value={once} />}
      <table>
        <thead>
          <tr>
            <th>{t("email")}</th>
            <th>{t("role")}</th>
            <th>{t("status")}</th>
            <th>{t("actions")}</th>
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((o) => (
            <tr key={o.id} data-operator={o.email}>
              <td>{o.email}</td>
              <td>
                {o.id === me.id ? (
                  roleLabel(o.role, t)
                ) : (
                  <RoleEditor
                    email={o.email}
                    role={o.role}
                    save={(role) => call("PATCH", `/operators/${o.id}`, { role })}
                  />
                )}
              </td>
              <td class="state">
                {o.active ? t("active") : t("inactive")}
                {o.locked && ` · ${t("lockedOut")}`}
                {` · ${t("secondFactor")}: ${t(o.second_factor ? "on" : "off")}`}
              </td>
              <td class="actions">
                {o.id !== me.id && (
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => {
                      if (o.active && !confirm(t("confirmDeactivate").replace("{email}", o.email))) return;
                      void call("PATCH", `/operators/${o.id}`, { active: !o.active });
                    }}
                  >
                    {o.active ? t("deactivate") : t("activate")}
                  </button>
                )}{" "}
                {o.locked && (
                  <button
                    type="button"
                    class="link"
                    onClick={() => call("PATCH", `/operators/${o.id}`, { unlock: true })}
                  >
                    {t("unlock")}
                  </button>
                )}{" "}
                {o.second_factor && o.id !== me.id && (
                  <button
                    type="button"
                    class="link reset-second-factor"
                    onClick={() => {
                      if (!confirm(t("confirmResetSecondFactor").replace("{email}", o.email))) return;
                      void call("PATCH", `/operators/${o.id}`, { reset_second_factor: true });
                    }}
                  >
                    {t("resetSecondFactor")}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        class="panel form"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          call(
            "POST",
            "/operators",
            { email: formValue(form, "email") ?? "", role: formValue(form, "role") },
            form,
          );
        }}
      >
        <h2>{t("create")}</h2>
        <Field label={t("email")}>
          <input name="email" type="email" required />
        </Field>
        <Field label={t("role")}>
          <select name="role">
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {roleLabel(r, t)}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit">{t("create")}</button>
      </form>
    </section>
  );
}

/** Any signed-in operator changes their own password; the other sessions end. */
export function PasswordForm({ done }: { done(csrf: string): void }) {
  const { t, notify } = useShell();
  return (
    <section id="password-page">
      <form
        class="panel form narrow"
        onSubmit={async (e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const res = await api<{ csrf_token: string }>("POST", "/password", {
            current: (form.elements.namedItem("current") as HTMLInputElement).value,
            next: (form.elements.namedItem("next") as HTMLInputElement).value,
          });
          notify(res.ok ? t("passwordChanged") : refusalIn(res.json, res.status), !res.ok);
          if (res.ok) {
            form.reset();
            done(res.json.csrf_token);
          }
        }}
      >
        <h1>{t("changePassword")}</h1>
        <Field label={t("current")}>
          <input name="current" type="password" autoComplete="current-password" required />
        </Field>
        <Field label={t("next")}>
          <input name="next" type="password" autoComplete="new-password" minLength={12} required />
        </Field>
        <button type="submit">{t("changePassword")}</button>
      </form>
    </section>
  );
}

/**
 * A role is chosen, then saved with its own button and a confirmation: a select that saved on
 * change made an admin of whoever's row the arrow keys passed over.
 */
function RoleEditor(props: { email: string; role: Role; save(role: Role): Promise<boolean> }) {
  const { t } = useShell();
  const [choice, setChoice] = useState<Role>(props.role);
  useEffect(() => setChoice(props.role), [props.role]);
  return (
    <>
      <select
        aria-label={`${t("role")} ${props.email}`}
        value={choice}
        onChange={(e) => setChoice(e.currentTarget.value as Role)}
      >
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {roleLabel(r, t)}
          </option>
        ))}
      </select>{" "}
      {choice !== props.role && (
        <button
          type="button"
          class="secondary save-role"
          onClick={async () => {
            if (!confirm(fill(t("confirmRole"), { email: props.email, role: roleLabel(choice, t) }))) return;
            // Refused (the last admin, say): the choice goes back to what the server has.
            if (!(await props.save(choice))) setChoice(props.role);
          }}
        >
          {t("saveRole")}
        </button>
      )}
    </>
  );
}
