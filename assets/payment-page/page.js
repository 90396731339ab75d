// The hosted payment page: no framework, no third-party requests. It talks to the two
// page-internal endpoints with the token from its own URL (docs/hosted-page.md).
(() => {
  const token = location.pathname.split("/").filter(Boolean).pop() || "";
  const api = `/api/pay/${encodeURIComponent(token)}`;
  const T = {
    tr: {
      title: "Havale / EFT ile ödeme",
      loading: "Yükleniyor…",
      amountLabel: "Yatırmak istediğiniz tutar (TL)",
      amountHelp: "Örnek: 250 veya 250,50",
      continue: "Devam et",
      sending: "Gönderiliyor…",
      transferLead: "Aşağıdaki hesaba tam olarak bu tutarı gönderin:",
      amount: "Tutar",
      bank: "Banka",
      holder: "Alıcı adı",
      copy: "Kopyala",
      copied: "Kopyalandı",
      copyFailed: "Kopyalanamadı. Metni seçip elle kopyalayın.",
      waiting: "Ödemeniz onaylandığında bu sayfa kendiliğinden güncellenir.",
      expiredTitle: "Bu ödeme sayfası kapandı",
      expiredText:
        "Hesap bilgisi artık gösterilmez. Ödemeyi yaptıysanız tekrar göndermeyin: sonucu işyeri size bildirir. Yeni bir ödeme için işyerinin sitesine dönün.",
      approvedTitle: "Ödemeniz onaylandı",
      approvedText: "İşyeri ödemenizi aldı. Bu sayfayı kapatabilirsiniz; tekrar ödeme yapmayın.",
      rejectedTitle: "Bu ödeme talebi kapandı",
      rejectedText:
        "Ödeme onaylanmadı (talep reddedildi veya süresi doldu). Havale yaptıysanız tekrar göndermeyin; dekontunuzla işyerine başvurun.",
      missingTitle: "Ödeme bağlantısı bulunamadı",
      missingText: "Bağlantıyı kontrol edin veya işyerinin sitesine dönün.",
      loadFailedTitle: "Sayfa yüklenemedi",
      loadFailedText: "İnternet bağlantınızı kontrol edip tekrar deneyin.",
      retry: "Tekrar dene",
      back: "Siteye dön",
      badAmount: "Geçerli bir tutar girin, örneğin 1250 veya 1250,50 (binlik ayırıcı kullanmadan).",
      tooMany: "Çok fazla deneme. Lütfen biraz bekleyin.",
      failed: "Bir sorun oluştu. Lütfen tekrar deneyin.",
      other: "EN",
      otherLabel: "English",
      lang: "tr",
    },
    en: {
      title: "Pay by bank transfer",
      loading: "Loading…",
      amountLabel: "Amount to deposit (TRY)",
      amountHelp: "For example: 250 or 250.50",
      continue: "Continue",
      sending: "Sending…",
      transferLead: "Send exactly this amount to the account below:",
      amount: "Amount",
      bank: "Bank",
      holder: "Recipient",
      copy: "Copy",
      copied: "Copied",
      copyFailed: "Could not copy. Select the text and copy it by hand.",
      waiting: "This page updates by itself once your payment is confirmed.",
      expiredTitle: "This payment page is closed",
      expiredText:
        "No account details are shown here any more. If you have paid, do not pay again: the merchant will tell you the result. Go back to the merchant's site for a new payment.",
      approvedTitle: "Your payment is confirmed",
      approvedText: "The merchant has received your payment. You can close this page; do not pay again.",
      rejectedTitle: "This payment request is closed",
      rejectedText:
        "The payment was not confirmed (the request was rejected or expired). If you sent a transfer, do not send it again; contact the merchant with your receipt.",
      missingTitle: "Payment link not found",
      missingText: "Check the link or go back to the merchant's site.",
      loadFailedTitle: "The page could not be loaded",
      loadFailedText: "Check your internet connection and try again.",
      retry: "Try again",
      back: "Back to the site",
      badAmount: "Enter a valid amount, for example 1250 or 1250.50 (no thousands separator).",
      tooMany: "Too many attempts. Please wait a moment.",
      failed: "Something went wrong. Please try again.",
      other: "TR",
      otherLabel: "Türkçe",
      lang: "en",
    },
  };
  // The contract's rejection texts are what the page API answers, some without Turkish letters;
  // payers read them with proper spelling and what to do next. Anything else the server says (a
  // 500's English text, say) is shown as the page's own "something went wrong".
  const REJECTIONS_TR = {
    "Halihazirda bekleyen talebiniz var":
      "Bekleyen bir ödeme talebiniz var. Önce onu tamamlayın veya işyerine başvurun.",
    "Bu islem numarasi zaten kullanilmis": "Bu ödeme zaten gönderilmiş. İşyerinin sitesine dönün.",
    "Bu tutar icin uygun hesap yok": "Bu tutar için şu anda uygun hesap yok. Başka bir tutar deneyin.",
    "Ödeme kanalı talebi kabul etmedi": "Ödeme kanalı bu talebi kabul etmedi. Başka bir tutar deneyin.",
    "Yatırım şu anda kapalı": "Yatırım şu anda kapalı. Daha sonra tekrar deneyin.",
    "Kullanıcı yasaklı": "Bu kullanıcı ödeme yapamaz. İşyerine başvurun.",
    "Yatırım tutarı limit dışında":
      "Yatırım tutarı limit dışında. Başka bir tutar deneyin veya limitleri işyerine sorun.",
  };
  const REJECTIONS_EN = {
    "Halihazirda bekleyen talebiniz var": "You already have a pending deposit.",
    "Bu islem numarasi zaten kullanilmis": "This payment was already submitted.",
    "Bu tutar icin uygun hesap yok": "No account is available for this amount. Try another amount.",
    "Ödeme kanalı talebi kabul etmedi":
      "The payment channel did not accept this request. Try another amount.",
    "Yatırım şu anda kapalı": "Deposits are closed at the moment.",
    "Kullanıcı yasaklı": "This user may not deposit.",
    "Yatırım tutarı limit dışında":
      "This amount is outside the allowed limits. Try another amount or ask the merchant for the limits.",
  };
  /** The page's text for an answer's message: a known rejection, a validation message, else "failed". */
  function rejectionText(status, message) {
    const known = (lang === "en" ? REJECTIONS_EN : REJECTIONS_TR)[message];
    if (known) return known;
    if (status === 400 && typeof message === "string" && message.startsWith("Validation failed: Amount"))
      return t("badAmount");
    return t("failed");
  }
  // Site data may be blocked: reading localStorage then throws (Chrome, Safari), or it is null (some
  // Android WebViews). The language is then Turkish and is not remembered.
  function savedLanguage() {
    try {
      return window.localStorage?.getItem("payintake.lang") === "en" ? "en" : "tr";
    } catch (_e) {
      return "tr";
    }
  }
  function saveLanguage(value) {
    try {
      window.localStorage?.setItem("payintake.lang", value);
    } catch (_e) {
      /* blocked: this page view keeps it */
    }
  }
  let lang = savedLanguage();
  let state = null;
  let values = {};
  const POLL_MS = 3000;
  /** A check that has not answered by then is given up, so that a hung request never stops polling. */
  const CHECK_TIMEOUT_MS = 10000;
  // Answers are applied in the order their requests were started, never in the order they arrive: a
  // slow check that answered "assigned" after a later one said "expired" showed the account again.
  // `issued` numbers every request (checks and submits), `applied` is the newest applied, and an
  // answer to a check started before a submit is ignored (`floor`): the submit's answer is newer.
  let issued = 0;
  let applied = 0;
  let floor = 0;
  let checking = false;
  let submitting = false;
  /** "expired" and "missing" are final on the page: nothing replaces them, no more checks. */
  let final = false;
  let timer = null;
  const $ = (id) => document.getElementById(id);

  function t(key) {
    return T[lang][key] || key;
  }
  function applyLanguage() {
    document.documentElement.lang = lang;
    document.querySelectorAll("[data-i18n]").forEach((el) => {
      el.textContent = t(el.getAttribute("data-i18n"));
    });
    $("lang").textContent = t("other");
    $("lang").setAttribute("aria-label", t("otherLabel"));
    document.title = t("title");
  }
  function show(id) {
    for (const s of ["loading", "failed", "open", "assigned", "expired", "missing"]) $(s).hidden = s !== id;
  }
  function groupIban(iban) {
    return iban
      .replace(/\s+/g, "")
      .replace(/(.{4})/g, "$1 ")
      .trim();
  }
  /** The answer's amount is a JSON number (250.00 arrives as 250): shown with its 2 decimals. */
  function localAmount(amount) {
    const text = Number(amount).toFixed(2);
    return lang === "tr" ? text.replace(".", ",") : text;
  }

  function setText(id, text) {
    if ($(id).textContent !== text) $(id).textContent = text;
  }

  function render(next) {
    if (final) return;
    state = next;
    const back = next?.return_url;
    $("return").hidden = !back;
    if (back) $("return-link").href = back;
    if (!next) {
      final = true;
      stopPolling();
      return show("missing");
    }
    if (next.status === "open") return show("open");
    if (next.status === "assigned") {
      // The amount is copied as it is shown (250,50 in Turkish): a Turkish banking app reads "."
      // as a thousands separator.
      values = {
        amount: localAmount(next.amount),
        bank: next.bank_name,
        holder: next.holder_name,
        iban: next.iban,
      };
      // Written only when they change: every poll rewriting them made screen readers read them again.
      setText("v-amount", `${localAmount(next.amount)} TL`);
      setText("v-bank", next.bank_name);
      setText("v-holder", next.holder_name);
      setText("v-iban", groupIban(next.iban));
      show("assigned");
      return;
    }
    values = {};
    for (const id of ["v-amount", "v-bank", "v-holder", "v-iban"]) setText(id, "");
    // How it ended, when the deposit was decided; else the neutral closed screen.
    const ending =
      next.outcome === "approved" ? "approved" : next.outcome === "rejected" ? "rejected" : "expired";
    $("expired-title").setAttribute("data-i18n", `${ending}Title`);
    $("expired-text").setAttribute("data-i18n", `${ending}Text`);
    setText("expired-title", t(`${ending}Title`));
    setText("expired-text", t(`${ending}Text`));
    final = true;
    show("expired");
    stopPolling();
  }

  /** Applies an answer unless one to a later request was applied already. */
  function accept(seq, next) {
    if (seq <= applied || seq < floor) return;
    applied = seq;
    render(next);
  }

  /** One status check at a time; the next is scheduled when this one has answered or given up. */
  async function check() {
    if (checking || submitting || final) return;
    checking = true;
    stopPolling();
    const seq = ++issued;
    const abort = new AbortController();
    const giveUp = setTimeout(() => abort.abort(), CHECK_TIMEOUT_MS);
    try {
      const res = await fetch(api, { cache: "no-store", credentials: "omit", signal: abort.signal });
      if (res.status === 404) accept(seq, null);
      else if (res.ok) accept(seq, await res.json());
      else notLoaded(seq);
    } catch (_e) {
      notLoaded(seq);
    } finally {
      clearTimeout(giveUp);
      checking = false;
      schedule();
    }
  }
  /** Offline or a server error: with nothing shown yet, say so and offer a retry (polling goes on). */
  function notLoaded(seq) {
    if (state === null && seq > applied && !final) show("failed");
  }
  // Polling pauses while the page is hidden (another tab, a locked phone): many payers share one
  // address behind a carrier's NAT, and its rate limit (docs/hosted-page.md).
  function schedule() {
    if (timer || checking || submitting || final || document.hidden) return;
    timer = setTimeout(() => {
      timer = null;
      check();
    }, POLL_MS);
  }
  function stopPolling() {
    if (timer) clearTimeout(timer);
    timer = null;
  }
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) stopPolling();
    else check();
  });
  $("retry").addEventListener("click", () => {
    show("loading");
    check();
  });

  function normalise(text) {
    const v = text.trim().replace(/\s/g, "").replace(",", ".");
    return /^\d{1,9}(\.\d{1,2})?$/.test(v) && Number(v) > 0 ? v : null;
  }
  function error(message) {
    $("amount-error").textContent = message;
    $("amount-error").hidden = !message;
    $("amount").setAttribute("aria-invalid", message ? "true" : "false");
  }

  $("amount-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const amount = normalise($("amount").value);
    if (!amount) {
      error(t("badAmount"));
      $("amount").focus();
      return;
    }
    error("");
    const button = $("submit");
    if (button.disabled) return;
    button.disabled = true;
    button.textContent = t("sending");
    // No check starts while the submit is out, and one already out is ignored when it answers.
    submitting = true;
    stopPolling();
    const seq = ++issued;
    floor = seq;
    try {
      const res = await fetch(`${api}/deposit`, {
        method: "POST",
        cache: "no-store",
        credentials: "omit",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount }),
      });
      const body = await res.json().catch(() => ({}));
      if (res.status === 404) return accept(seq, null);
      if (res.status === 429) return error(t("tooMany"));
      if (res.ok) return accept(seq, body);
      error(rejectionText(res.status, body?.message));
    } catch (_e) {
      error(t("failed"));
    } finally {
      button.disabled = false;
      button.textContent = t("continue");
      submitting = false;
      schedule();
    }
  });

  document.addEventListener("click", async (event) => {
    const key = event.target?.getAttribute?.("data-copy");
    if (!key || !values[key]) return;
    let copied = false;
    try {
      await navigator.clipboard.writeText(values[key]);
      copied = true;
    } catch (_e) {
      // No clipboard here (an in-app browser, a page not on https): the value is selected instead,
      // and the payer is told, so nothing older on the clipboard gets pasted by mistake.
      const shown = $(`v-${key}`);
      if (shown) window.getSelection()?.selectAllChildren(shown);
    }
    $("copied").textContent = t(copied ? "copied" : "copyFailed");
    $("copied").hidden = false;
    setTimeout(
      () => {
        $("copied").hidden = true;
      },
      copied ? 2000 : 6000,
    );
  });
  $("lang").addEventListener("click", () => {
    lang = lang === "tr" ? "en" : "tr";
    saveLanguage(lang);
    applyLanguage();
    if (state) render(state);
  });

  applyLanguage();
  check();
})();
