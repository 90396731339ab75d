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
    $("nav").hidden = true;
    $("logout").hidden = true;
    $("who").textContent = "";
  }
  function showQueue(operator) {
    $("login").hidden = true;
    $("queue").hidden = false;
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
  async function load() {
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
  for (const b of document.querySelectorAll(".tab")) {
    b.addEventListener("click", () => {
      type = b.dataset.type;
      selected = 0;
      rows = [];
      applyLanguage();
      for (const x of document.querySelectorAll(".tab"))
        x.setAttribute("aria-current", x.dataset.type === type ? "page" : "false");
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
