import type { AuditEntryView as Entry } from "../../src/backoffice/operator-services.js";
import { api, query } from "./api";
import {
  actionName,
  actionText,
  auditActions,
  auditEntities,
  entityName,
  entityText,
  fieldText,
  valueText,
} from "./audit-words";
import { refusalIn } from "./decision-text";
import { Field, filterQuery, lastDay, useLoad, useShell, when } from "./ui";

const FILTERS = ["actor", "action", "entity_type", "entity_id", "from", "to"] as const;
/** What one look at the log shows (the server's default page). */
const AUDIT_PAGE = 200;

/** Who changed what, when, before and after; filtered by the URL so a view can be shared. */
export function Audit({ filter }: { filter: URLSearchParams }) {
  const { t, lang, notify } = useShell();
  const q = query(Object.fromEntries(FILTERS.map((f) => [f, filter.get(f) ?? undefined])));
  const [entries] = useLoad(async () => {
    const res = await api<Entry[]>("GET", `/audit?${q}`);
    if (!res.ok) notify(refusalIn(res.json, res.status), true);
    return res.ok ? res.json : [];
  }, q);

  function submit(e: Event) {
    e.preventDefault();
    location.hash = `#/audit?${filterQuery(e.currentTarget as HTMLFormElement, FILTERS)}`;
  }

  return (
    <section id="audit-page">
      <h1>{t("audit")}</h1>
      <form id="audit-form" class="filters" onSubmit={submit}>
        <Field label={t("actor")}>
          <input name="actor" placeholder="operator:ayse@…" defaultValue={filter.get("actor") ?? ""} />
        </Field>
        <Field label={t("action")}>
          <select name="action" defaultValue={filter.get("action") ?? ""}>
            <option value="">{t("any")}</option>
            {auditActions.map((a) => (
              <option key={a} value={a}>
                {actionName(a, lang)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t("entity")}>
          <select name="entity_type" defaultValue={filter.get("entity_type") ?? ""}>
            <option value="">{t("any")}</option>
            {auditEntities.map((a) => (
              <option key={a} value={a}>
                {entityName(a, lang)}
              </option>
            ))}
          </select>
        </Field>
        <Field label="ID">
          <input name="entity_id" size={8} defaultValue={filter.get("entity_id") ?? ""} />
        </Field>
        <Field label={t("from")}>
          <input name="from" type="date" defaultValue={filter.get("from")?.slice(0, 10) ?? ""} />
        </Field>
        <Field label={t("to")}>
          <input name="to" type="date" defaultValue={lastDay(filter.get("to"))} />
        </Field>
        <button type="submit">{t("find")}</button>
      </form>
      <table id="audit">
        <thead>
          <tr>
            <th>{t("when")}</th>
            <th>{t("actor")}</th>
            <th>{t("action")}</th>
            <th>{t("entity")}</th>
            <th>{t("change")}</th>
          </tr>
        </thead>
        <tbody>
          {(entries ?? []).map((e) => (
            <tr key={e.id} data-action={e.action}>
              <td>{when(e.at, lang)}</td>
              <td>{e.actor}</td>
              {/* The stored action in its title: what the admin API's filter takes. */}
              <td class="action" title={e.action}>
                {actionText(e.action, e.before, e.after, lang)}
              </td>
              <td>
                {e.entity_type === "transaction" ? (
                  <a href={`#/transactions/${e.entity_id}`}>{entityText(e.entity_type, e.entity_id, lang)}</a>
                ) : (
                  entityText(e.entity_type, e.entity_id, lang)
                )}
              </td>
              <td class="change">
                <Change
                  before={e.before}
                  after={e.after}
                  label={(k) => fieldText(k, lang)}
                  show={(k, v) => valueText(k, v, lang)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries && entries.length === 0 && <p class="help">{t("noResults")}</p>}
      {entries && entries.length >= AUDIT_PAGE && (
        <p id="more" class="help error">
          {t("firstEntries").replace("{n}", String(AUDIT_PAGE))}
        </p>
      )}
    </section>
  );
}

/** One line per field: before → after (a creation shows only the after), named and shown in words. */
export function Change(props: {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  label: (key: string) => string;
  show: (key: string, value: unknown) => string;
}) {
  const { before, after, label, show: shown } = props;
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return (
    <>
      {keys.map((k) => (
        <div key={k}>
          <span class="key">{label(k)}</span>: {before && k in before ? `${shown(k, before[k])} → ` : ""}
          {after && k in after ? shown(k, after[k]) : ""}
        </div>
      ))}
    </>
  );
}
