// The operator console: no framework, no third-party requests, same-origin API (docs/console.md).
(() => {
  const T = {
    tr: {
      deposits: "Yatırımlar",
      withdrawals: "Çekimler",
      logout: "Çıkış",
      signIn: "Giriş",
      email: "E-posta",
      password: "Parola",
      pendingDeposits: "Bekleyen yatırımlar",
      pendingWithdrawals: "Bekleyen çekimler",
      order: "Sıra",
      oldest: "En eski önce",
      newest: "En yeni önce",
      keys: "Kısayollar: j/k seç, a onayla, r reddet",
      age: "Süre",
      amount: "Tutar",
      payer: "Ödeyen",
      firm: "Firma",
      account: "Hesap",
      actions: "İşlem",
      empty: "Bekleyen işlem yok.",
      approve: "Onayla",
      reject: "Reddet",
      notePrompt: "Red notu (isteğe bağlı):",
      approved: "Onaylandı",
      rejected: "Reddedildi",
      badLogin: "E-posta veya parola yanlış.",
      locked: "Çok fazla hatalı giriş. Daha sonra deneyin.",
      manage: "Yönetim",
      firms: "Firmalar",
      accountsTitle: "Hesaplar",
      audit: "Denetim kaydı",
      rotate: "Anahtarı yenile",
      newSecret: "Yeni gizli anahtar (yalnız şimdi gösterilir):",
      activate: "Etkinleştir",
      deactivate: "Devre dışı bırak",
      active: "etkin",
      inactive: "devre dışı",
      dashboard: "Özet",
      today: "Bugün",
      channels: "Kanallar",
      approvalRate: "Onay oranı",
      medianDecision: "Karara kadar (medyan)",
      callbackFailures: "Başarısız bildirimler",
      callbackPending: "Bekleyen bildirimler",
      approvedVolume: "Onaylanan hacim",
      transactions: "İşlemler",
      reference: "Referans",
      status: "Durum",
      find: "Ara",
      csv: "CSV",
      created: "Oluşturma",
      type: "Tür",
      history: "Karar geçmişi",
      routing: "Yönlendirme",
      callbacks: "Bildirimler",
      redeliver: "Yeniden gönder",
      redelivered: "Yeniden gönderilecek",
      ibanInvalid: "IBAN geçersiz",
      other: "EN",
      amountPlaceholder: "tutar",
    },
    en: {
      deposits: "Deposits",
      withdrawals: "Withdrawals",
      logout: "Log out",
      signIn: "Sign in",
      email: "Email",
      password: "Password",
      pendingDeposits: "Pending deposits",
      pendingWithdrawals: "Pending withdrawals",
      order: "Order",
      oldest: "Oldest first",
      newest: "Newest first",
      keys: "Shortcuts: j/k select, a approve, r reject",
      age: "Age",
      amount: "Amount",
      payer: "Payer",
      firm: "Firm",
      account: "Account",
      actions: "Action",
      empty: "Nothing pending.",
      approve: "Approve",
      reject: "Reject",
      notePrompt: "Rejection note (optional):",
      approved: "Approved",
      rejected: "Rejected",
      badLogin: "Wrong email or password.",
      locked: "Too many failed logins. Try again later.",
      manage: "Manage",
      firms: "Firms",
      accountsTitle: "Accounts",
      audit: "Audit log",
      rotate: "Rotate secret",
      newSecret: "New secret key (shown only now):",
      activate: "Activate",
      deactivate: "Deactivate",
      active: "active",
      inactive: "inactive",
      dashboard: "Summary",
      today: "Today",
      channels: "Channels",
      approvalRate: "Approval rate",
      medianDecision: "Time to decision (median)",
      callbackFailures: "Failed callbacks",
      callbackPending: "Callbacks pending",
      approvedVolume: "Approved volume",
      transactions: "Transactions",
      reference: "Reference",
      status: "Status",
      find: "Search",
      csv: "CSV",
      created: "Created",
      type: "Type",
      history: "Decision history",
      routing: "Routing",
      callbacks: "Callbacks",
      redeliver: "Send again",
      redelivered: "Will be sent again",
      ibanInvalid: "IBAN invalid",
      other: "TR",
      amountPlaceholder: "amount",
    },
  };
  let lang = localStorage.getItem("payintake.ops.lang") === "en" ? "en" : "tr";
  let csrf = null;
  let type = "deposit";
  let rows = [];
  let selected = 0;
  let timer = null;
  const $ = (id) => document.getElementById(id);
  const t = (k) => T[lang][k] || k;

  function applyLanguage() {
    document.documentElement.lang = lang;
    for (const el of document.querySelectorAll("[data-i18n]"))
      el.textContent = t(el.getAttribute("data-i18n"));
    $("lang").textContent = t("other");
    $("queue-title").textContent = t(type === "deposit" ? "pendingDeposits" : "pendingWithdrawals");
    renderRows();
  }
  function say(text, bad) {
    $("message").textContent = text;
    $("message").className = bad ? "error" : "";
    $("message").hidden = !text;
  }
  async function api(method, path, body) {
    const res = await fetch(path, {
      method,
      credentials: "same-origin",
      cache: "no-store",
      headers: {
        ...(body ? { "content-type": "application/json" } : {}),
        ...(csrf && method !== "GET" ? { "x-csrf-token": csrf } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json().catch(() => ({}));
    if (res.status === 401 && path !== "/ops/api/login") showLogin();
    return { status: res.status, json };
  }
  function showLogin() {
    csrf = null;
    stop();
    $("login").hidden = false;
    $("queue").hidden = true;
    $("search").hidden = true;
    $("nav").hidden = true;
    $("logout").hidden = true;
    $("who").textContent = "";
  }
  function showQueue(operator) {
    $("login").hidden = true;
    showView();
    $("nav").hidden = false;
    $("logout").hidden = false;
    $("who").textContent = `${operator.email} (${operator.role})`;
    for (const b of document.querySelectorAll(".tab"))
      b.setAttribute("aria-current", b.dataset.type === type ? "page" : "false");
    load();
    stop();
    timer = setInterval(load, 5000);
  }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
  }

  function age(iso) {
    const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    return s < 90 ? `${s} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  }
  function cell(tr, text, cls, sub) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    td.append(document.createTextNode(text));
    if (sub) {
      const div = document.createElement("div");
      div.className = sub.bad ? "sub bad-iban" : "sub";
      div.textContent = sub.text;
      td.append(div);
    }
    tr.append(td);
    return td;
  }
  function renderRows() {
    const body = $("rows");
    body.replaceChildren();
    $("empty").hidden = rows.length > 0;
    rows.forEach((r, i) => {
      const tr = document.createElement("tr");
      tr.dataset.id = r.id;
      tr.tabIndex = -1;
      if (i === selected) tr.className = "selected";
      cell(tr, String(r.id));
      cell(tr, age(r.created_at));
      cell(tr, `${r.amount} TL`, "amount");
      cell(tr, `${r.first_name} ${r.last_name}`, "", { text: `${r.username} · ${r.user_id}` });
      cell(tr, String(r.firm_id), "", { text: r.reference });
      if (r.type === "deposit") cell(tr, r.assigned_bank_name || "", "", { text: r.assigned_iban || "" });
      else
        cell(
          tr,
          r.iban || "",
          "",
          r.iban_valid === false ? { text: t("ibanInvalid"), bad: true } : undefined,
        );
      const actions = cell(tr, "", "actions");
      if (r.type === "deposit") {
        const amount = document.createElement("input");
        amount.placeholder = t("amountPlaceholder");
        amount.setAttribute("aria-label", t("amount"));
        amount.className = "edit-amount";
        actions.append(amount, " ");
      }
      const ok = document.createElement("button");
      ok.type = "button";
      ok.className = "approve";
      ok.textContent = t("approve");
      ok.addEventListener("click", () => decide(r, "approve"));
      const no = document.createElement("button");
      no.type = "button";
      no.className = "reject";
      no.textContent = t("reject");
      no.addEventListener("click", () => decide(r, "reject"));
      actions.append(ok, " ", no);
      body.append(tr);
    });
  }
  function showView() {
    $("search").hidden = type !== "search";
    $("dashboard").hidden = type !== "dashboard";
    $("manage").hidden = type !== "manage";
    $("queue").hidden = type === "search" || type === "dashboard" || type === "manage";
  }
  function card(label, figure, bars) {
    const div = document.createElement("div");
    div.className = "card";
    const f = document.createElement("div");
    f.className = "figure";
    f.textContent = figure;
    const l = document.createElement("div");
    l.className = "label";
    l.textContent = label;
    div.append(f, l);
    if (bars) {
      const total = bars.reduce((a, b) => a + b[1], 0) || 1;
      const bar = document.createElement("div");
      bar.className = "bars";
      bar.setAttribute("role", "img");
      bar.setAttribute("aria-label", bars.map(([k, n]) => `${k} ${n}`).join(", "));
      for (const [k, n] of bars) {
        const s = document.createElement("span");
        s.className = k;
        s.style.width = `${(100 * n) / total}%`;
        bar.append(s);
      }
      div.append(bar);
    }
    $("cards").append(div);
  }
  function actionButton(label, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }
  async function loadManage() {
    const [firms, accounts, audit] = await Promise.all([
      api("GET", "/ops/api/firms"),
      api("GET", "/ops/api/accounts"),
      api("GET", "/ops/api/audit"),
    ]);
    if (firms.status !== 200) return;
    $("firms").replaceChildren();
    for (const f of firms.json) {
      const tr = document.createElement("tr");
      tr.dataset.firm = f.id;
      cell(tr, `#${f.id} ${f.name}`);
      cell(tr, f.active ? t("active") : t("inactive"));
      const td = cell(tr, "", "actions");
      td.append(
        actionButton(t("rotate"), async () => {
          const r = await api("POST", `/ops/api/firms/${f.id}/rotate-secret`);
          if (r.status !== 200) return say(r.json.message || String(r.status), true);
          $("secret").textContent = `${t("newSecret")} ${r.json.secret_key}`;
          $("secret").hidden = false;
          loadManage();
        }),
      );
      $("firms").append(tr);
    }
    $("accounts").replaceChildren();
    for (const a of accounts.json) {
      const tr = document.createElement("tr");
      tr.dataset.account = a.id;
      cell(tr, `#${a.id} ${a.bank_name}`, "", { text: a.iban });
      cell(tr, a.active ? t("active") : t("inactive"), "state");
      const td = cell(tr, "", "actions");
      td.append(
        actionButton(a.active ? t("deactivate") : t("activate"), async () => {
          const r = await api("PATCH", `/ops/api/accounts/${a.id}`, { active: !a.active });
          if (r.status !== 200) return say(r.json.message || String(r.status), true);
          loadManage();
        }),
      );
      $("accounts").append(tr);
    }
    $("audit").replaceChildren();
    for (const e of audit.json.slice(0, 50)) {
      li(
        $("audit"),
        `${e.at} ${e.actor} ${e.action} ${e.entity_type}#${e.entity_id} ${JSON.stringify(e.before)} → ${JSON.stringify(e.after)}`,
      );
    }
  }
  async function loadDashboard() {
    const res = await api("GET", "/ops/api/dashboard");
    if (res.status !== 200) return;
    const d = res.json;
    $("cards").replaceChildren();
    const rate = (r) => (r === null ? "—" : `${Math.round(r * 100)} %`);
    for (const [key, x] of [
      ["deposits", d.deposits],
      ["withdrawals", d.withdrawals],
    ]) {
      card(t(key), `${x.count} · ${x.volume} TL`, [
        ["approved", x.approved],
        ["rejected", x.rejected],
        ["pending", x.pending],
      ]);
      card(`${t(key)} · ${t("approvalRate")}`, rate(x.approval_rate));
      card(`${t(key)} · ${t("approvedVolume")}`, `${x.approved_volume} TL`);
    }
    card(
      t("medianDecision"),
      d.median_seconds_to_decision === null ? "—" : `${Math.round(d.median_seconds_to_decision / 60)} min`,
    );
    card(t("callbackFailures"), String(d.callbacks.failed));
    card(t("callbackPending"), String(d.callbacks.pending));
    $("channels").replaceChildren();
    for (const c of d.channels)
      li($("channels"), `${c.code} (${c.kind}): ${c.active ? c.breaker : "inactive"}`);
  }
  function li(list, text, extra) {
    const item = document.createElement("li");
    item.textContent = text;
    if (extra) item.append(" ", extra);
    list.append(item);
  }
  function searchQuery() {
    const q = new URLSearchParams();
    for (const [id, name] of [
      ["s-reference", "reference"],
      ["s-user", "user_id"],
      ["s-iban", "iban"],
      ["s-status", "status"],
    ]) {
      const v = $(id).value.trim();
      if (v) q.set(name, v);
    }
    return q.toString();
  }
  async function runSearch() {
    const query = searchQuery();
    $("csv").href = `/ops/api/transactions.csv?${query}`;
    const res = await api("GET", `/ops/api/transactions?${query}`);
    const body = $("results");
    body.replaceChildren();
    if (res.status !== 200) return say(res.json.message || String(res.status), true);
    for (const r of res.json) {
      const tr = document.createElement("tr");
      tr.dataset.id = r.id;
      tr.tabIndex = 0;
      for (const v of [
        r.id,
        r.created_at,
        r.type,
        r.status,
        `${r.amount} TL`,
        r.reference,
        `${r.first_name} ${r.last_name}`,
      ])
        cell(tr, String(v));
      tr.addEventListener("click", () => showDetail(r.id));
      tr.addEventListener("keydown", (e) => {
        if (e.key === "Enter") showDetail(r.id);
      });
      body.append(tr);
    }
  }
  async function showDetail(id) {
    const res = await api("GET", `/ops/api/transactions/${id}`);
    if (res.status !== 200) return say(res.json.message || String(res.status), true);
    const d = res.json;
    $("detail").hidden = false;
    $("d-title").textContent = `#${d.id} · ${d.reference} · ${d.status}`;
    const fields = {
      amount: d.amount,
      original_amount: d.original_amount,
      type: d.type,
      method: d.method,
      firm_id: d.firm_id,
      payer: `${d.first_name} ${d.last_name}`,
      username: d.username,
      user_id: d.user_id,
      national_id: d.national_id_full || d.national_id,
      bank_code: d.bank_code,
      account: d.assigned_iban ? `${d.assigned_bank_name} ${d.assigned_iban}` : null,
      iban: d.iban,
      iban_valid: d.iban_valid,
      decided_by: d.decided_by,
      decided_at: d.decided_at,
      decision_note: d.decision_note,
      callback_url: d.callback_url,
    };
    $("d-fields").textContent = Object.entries(fields)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n");
    $("d-history").replaceChildren();
    for (const h of d.history)
      li($("d-history"), `${h.at} ${h.actor} ${h.action} ${JSON.stringify(h.after)}`);
    $("d-routing").replaceChildren();
    for (const s of d.routing)
      li(
        $("d-routing"),
        `#${s.account_id} ${s.channel || "manual"}: ${s.outcome}${s.reason ? ` (${s.reason})` : ""} ${s.ms} ms`,
      );
    $("d-callbacks").replaceChildren();
    for (const c of d.callbacks) {
      const again = document.createElement("button");
      again.type = "button";
      again.className = "redeliver";
      again.textContent = t("redeliver");
      again.addEventListener("click", async () => {
        const r = await api("POST", `/ops/api/callbacks/${c.id}/redeliver`);
        say(
          r.status === 200 ? `${t("redelivered")}: #${c.id}` : r.json.message || String(r.status),
          r.status !== 200,
        );
        showDetail(id);
      });
      li($("d-callbacks"), `${c.event} → ${c.status}, ${c.attempts.length} × ${c.last_result || ""}`, again);
    }
  }

  async function load() {
    if (type === "search") return;
    if (type === "dashboard") return loadDashboard();
    if (type === "manage") return loadManage();
    const res = await api("GET", `/ops/api/queue?type=${type}&order=${$("order").value}`);
    if (res.status !== 200) return;
    const id = rows[selected]?.id;
    rows = res.json;
    const again = rows.findIndex((r) => r.id === id);
    selected = again >= 0 ? again : Math.min(selected, Math.max(0, rows.length - 1));
    renderRows();
  }
  async function decide(r, kind) {
    const body = {};
    if (kind === "approve") {
      const input = document.querySelector(`tr[data-id="${r.id}"] .edit-amount`);
      if (input?.value.trim()) body.amount = input.value.trim().replace(",", ".");
    } else {
      const note = prompt(t("notePrompt"));
      if (note === null) return;
      if (note.trim()) body.note = note.trim();
    }
    const res = await api("POST", `/ops/api/transactions/${r.id}/${kind}`, body);
    if (res.status === 200) say(`#${r.id}: ${t(kind === "approve" ? "approved" : "rejected")}`, false);
    else say(`#${r.id}: ${res.json.message || res.status}`, true);
    await load();
  }

  $("login").addEventListener("submit", async (e) => {
    e.preventDefault();
    const res = await api("POST", "/ops/api/login", {
      email: $("email").value,
      password: $("password").value,
    });
    if (res.status === 200) {
      csrf = res.json.csrf_token;
      $("password").value = "";
      $("login-error").hidden = true;
      return showQueue(res.json.operator);
    }
    $("login-error").textContent = t(res.status === 423 ? "locked" : "badLogin");
    $("login-error").hidden = false;
  });
  $("logout").addEventListener("click", async () => {
    await api("POST", "/ops/api/logout");
    showLogin();
  });
  $("lang").addEventListener("click", () => {
    lang = lang === "tr" ? "en" : "tr";
    localStorage.setItem("payintake.ops.lang", lang);
    applyLanguage();
  });
  $("order").addEventListener("change", load);
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runSearch();
  });
  for (const b of document.querySelectorAll(".tab")) {
    b.addEventListener("click", () => {
      type = b.dataset.type;
      selected = 0;
      rows = [];
      applyLanguage();
      for (const x of document.querySelectorAll(".tab"))
        x.setAttribute("aria-current", x.dataset.type === type ? "page" : "false");
      showView();
      load();
    });
  }
  document.addEventListener("keydown", (e) => {
    if (
      $("queue").hidden ||
      e.target.tagName === "INPUT" ||
      e.target.tagName === "SELECT" ||
      e.ctrlKey ||
      e.metaKey ||
      e.altKey
    )
      return;
    if (e.key === "j") selected = Math.min(rows.length - 1, selected + 1);
    else if (e.key === "k") selected = Math.max(0, selected - 1);
    else if (e.key === "a" && rows[selected]) return void decide(rows[selected], "approve");
    else if (e.key === "r" && rows[selected]) return void decide(rows[selected], "reject");
    else return;
    renderRows();
  });

  applyLanguage();
  api("GET", "/ops/api/me").then((res) => {
    if (res.status === 200) {
      csrf = res.json.csrf_token;
      showQueue(res.json.operator);
    } else showLogin();
  });
})();
