// The hosted payment page: no framework, no third-party requests. It talks to the two
// page-internal endpoints with the token from its own URL (docs/hosted-page.md).
import { amountInWords, bareAmount, dottedThousands, readAmount } from "./amount.js";
import { LIMIT_REFUSAL, PAGE_WORDS, PENDING_REFUSAL, REFUSAL_WORDS, wordsIn } from "./page-text.js";

const token = location.pathname.split("/").filter(Boolean).pop() || "";
const api = `/api/pay/${encodeURIComponent(token)}`;
/** The page's words for a refusal, by its code (page-text.js); without a known code, "failed". */
function refusalText(code) {
  // The limits, when the page knows them, say more than "ask the merchant".
  if (code === LIMIT_REFUSAL && limitsText()) return `${t("outOfLimits")} ${limitsText()}`;
  return wordsIn(REFUSAL_WORDS, code, lang) ?? t("failed");
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
/** What each copy button copies (the amount always with a decimal comma, the IBAN without spaces). */
let values = {};
/** The amount error and the copy status are kept as functions of the language, not as text. */
let errorText = null;
let copyStatus = null;
let copyStatusTimer = null;
/** The amount on the account screen differs from the one just typed: its number, else null. */
let earlier = null;
/**
 * The open session's answer names the payer's earlier deposit, still pending (made directly or
 * from another link): the account screen shows it instead of a form the server can only refuse.
 */
let pendingElsewhere = false;
/** That earlier deposit was decided while this page showed it: the form comes back with a notice. */
let settled = false;
/**
 * This page's own deposit as its last pending answer showed it (amount, reference, time): the
 * receipt once it is approved, the reference to quote once it is rejected. The closed answer
 * carries none of it, so a page that never saw it pending shows neither.
 */
let seen = null;
/**
 * Whom the payer pays, as the last answer that named it said (the closed answer does not): kept for
 * the closed screen of a page that saw it.
 */
let merchant = "";
/** The deposit's decision, once the closed screen shows one; null before. */
let ending = null;
/** Rewrites the countdown when its minute changes. */
let countdownTimer = null;
/** A wide screen (a computer): the QR code to open this page on the phone is shown there only. */
const wide = window.matchMedia("(min-width: 900px)");
const POLL_MS = 3000;
/** A check that has not answered by then is given up, so that a hung request never stops polling. */
const CHECK_TIMEOUT_MS = 10000;
/**
 * A submit unanswered by then is given up too: the page then checks what became of it (the
 * deposit may exist already) instead of showing "Sending…" for as long as the connection hangs.
 * Longer than the server's routing deadline (PAYINTAKE_ROUTING_DEADLINE_MS, at most 20 s): a
 * deposit routed slowly but normally is not given up, and its channels are not asked twice.
 * Sending the amount again is safe: a second submit shows the account the first one got.
 */
const SUBMIT_TIMEOUT_MS = 25000;
// Answers are applied in the order their requests were started, never in the order they arrive: a
// slow check that answers "assigned" after a later one said "expired" would show the account again.
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
const SCREENS = ["loading", "failed", "open", "check", "assigned", "expired", "missing"];
/** What gets focus when a screen replaces another, so that screen readers announce it. */
const FOCUS = {
  failed: "failed-title",
  open: "amount-label",
  check: "confirm-title",
  assigned: "assigned-lead",
  expired: "expired-title",
  missing: "missing-title",
};
/** The screen shown; null until the first answer, when nothing had focus yet. */
let screen = null;
/**
 * The amount read from what the payer typed (the API's form), shown large and in words before it
 * is sent: a digit too many ("15000" for "1500") is seen there, while it can still be changed.
 * null while no amount waits for the payer's confirmation.
 */
let confirming = null;
/** "1.500" typed: its likely reading, offered as one tap ("1.500,00 TL ile devam et"); else null. */
let reading = null;

function t(key) {
  return wordsIn(PAGE_WORDS, key, lang) || key;
}
const fill = (key, params) => t(key).replace(/\{(\w+)\}/g, (_m, name) => params[name]);

function applyLanguage() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-i18n]").forEach((el) => {
    el.textContent = t(el.getAttribute("data-i18n"));
  });
  document.querySelectorAll("[data-i18n-label]").forEach((el) => {
    el.setAttribute("aria-label", t(el.getAttribute("data-i18n-label")));
  });
  // The button names the other language, in that language, and its name is what it shows (a
  // screen reader's user who says "English" to press it finds it by that word).
  $("lang").textContent = t("other");
  $("lang").setAttribute("lang", t("otherLang"));
  document.title = t("title");
  paint();
  handoff();
}
/**
 * "<Shop> için ödeme" above the amount, on every screen that is about this payment once the page
 * knows the shop. The name sits in its own <bdi>, between the words before and after it.
 */
function merchantLine() {
  const shown = merchant !== "" && ["open", "check", "assigned", "expired"].includes(screen);
  $("merchant").hidden = !shown;
  if (!shown) return;
  const [before, after = ""] = t("paymentTo").split("{merchant}");
  setText("merchant-before", before);
  setText("merchant-name", merchant);
  setText("merchant-after", after);
}
function show(id) {
  for (const s of SCREENS) $(s).hidden = s !== id;
  // Focus follows a change of screen, not the first one (nothing had focus yet). After a retry too:
  // the button pressed is gone, and what replaces "loading" is announced, the failure again or the form.
  if (id !== screen && screen !== null && FOCUS[id]) {
    let target = FOCUS[id];
    if (id === "assigned" && pendingElsewhere) target = "earlier-deposit";
    else if (id === "assigned" && earlier !== null) target = "earlier-amount";
    else if (id === "open" && settled) target = "earlier-settled";
    else if (id === "check" && !$("unusual").hidden) target = "unusual";
    $(target).focus();
  }
  screen = id;
  merchantLine();
  handoff();
}
function groupIban(iban) {
  return iban
    .replace(/\s+/g, "")
    .replace(/(.{4})/g, "$1 ")
    .trim();
}
/**
 * Amounts arrive as JSON numbers (250.00 as 250). Copied with a decimal comma and nothing else
 * ("1500,50"), in either language: a Turkish banking app reads "." as a thousands separator.
 */
const copyAmount = (amount) => Number(amount).toFixed(2).replace(".", ",");
/** Shown as Turkish money in either language, grouped by thousands: "1.500,50 TL". */
function shownAmount(amount) {
  const [whole, cents] = Number(amount).toFixed(2).split(".");
  return `${whole.replace(/\B(?=(\d{3})+$)/g, ".")},${cents} TL`;
}
/**
 * A deadline in the payer's own time: "15:30", or "26 Kasım 15:30" when it is not today (auto-cancel
 * may be days away). "" for a missing or unreadable one.
 */
function shownTime(iso) {
  const d = new Date(iso ?? "");
  if (Number.isNaN(d.getTime())) return "";
  const locale = lang === "en" ? "en-GB" : "tr-TR";
  const time = d.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" });
  if (d.toDateString() === new Date().toDateString()) return time;
  return `${d.toLocaleDateString(locale, { day: "numeric", month: "long" })} ${time}`;
}
/** A help line with a deadline: hidden when there is none. */
function deadline(id, key, iso) {
  const time = shownTime(iso);
  $(id).hidden = time === "";
  setText(id, time === "" ? "" : fill(key, { time }));
}
/** "(22 dakika kaldı)", "(1 saat 5 dakika kaldı)": whole minutes left, rounded up. */
function timeLeft(ms) {
  if (ms <= 0) return t("timeUp");
  const total = Math.ceil(ms / 60000);
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  if (hours === 0) return minutes === 1 ? t("oneMinuteLeft") : fill("minutesLeft", { minutes });
  return minutes === 0 ? fill("wholeHoursLeft", { hours }) : fill("hoursLeft", { hours, minutes });
}
/**
 * The account screen's one deadline, the deposit's pay_by, with the minutes left; rewritten when
 * that minute changes, and at once on an answer or a language switch. No deadline, none shown.
 */
function payBy(iso) {
  clearTimeout(countdownTimer);
  countdownTimer = null;
  const time = shownTime(iso);
  $("pay-by").hidden = time === "";
  if (time === "") return;
  setText("pay-by-time", fill("payBy", { time }));
  const left = new Date(iso).getTime() - Date.now();
  setText("pay-by-left", timeLeft(left));
  if (left <= 0) return;
  // Just past the moment the rounded-up minutes change (`left` is a whole number of minutes then).
  countdownTimer = setTimeout(() => payBy(iso), (left % 60000 || 60000) + 50);
}
/** A moment as a receipt says it, day and time in the payer's own time: "28.11.2026 21:43". */
function receiptTime(iso) {
  const d = new Date(iso ?? "");
  if (Number.isNaN(d.getTime())) return "";
  const locale = lang === "en" ? "en-GB" : "tr-TR";
  const day = d.toLocaleDateString(locale, { day: "2-digit", month: "2-digit", year: "numeric" });
  return `${day} ${d.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" })}`;
}

/** The firm's limits from the open state, as a sentence; "" when it has none. */
function limitsText() {
  const min = state?.min_amount;
  const max = state?.max_amount;
  if (typeof min === "number" && typeof max === "number")
    return fill("limitsBoth", { min: shownAmount(min), max: shownAmount(max) });
  if (typeof min === "number") return fill("limitsMin", { min: shownAmount(min) });
  if (typeof max === "number") return fill("limitsMax", { max: shownAmount(max) });
  return "";
}

/** In whole kuruş from the decimal text or a JSON number, no float arithmetic: "1500.5" is 150050. */
function kurus(value) {
  const [whole = "0", fraction = ""] = (typeof value === "number" ? value.toFixed(2) : value).split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
}
/**
 * Whether an amount (the API's form, "1500.50") is outside the firm's limits as the last answer
 * gave them. Compared in kuruş. The server judges again: limits an operator changed since show at
 * the next check.
 */
function outsideLimits(amount) {
  const min = state?.min_amount;
  const max = state?.max_amount;
  return (
    (typeof min === "number" && kurus(amount) < kurus(min)) ||
    (typeof max === "number" && kurus(amount) > kurus(max))
  );
}

/**
 * Whether an amount is far above what this firm's payers usually send (usual_max_amount): the
 * confirmation then says so. A warning only; the amount may still be sent.
 */
function unusual(amount) {
  const usual = state?.usual_max_amount;
  return typeof usual === "number" && kurus(amount) > kurus(usual);
}

/** The account the screen shows: this page's deposit, or the payer's earlier one still pending. */
function account() {
  if (state?.status === "assigned") return state;
  return state?.status === "open" ? (state.earlier_deposit ?? null) : null;
}

function setText(id, text) {
  if ($(id).textContent !== text) $(id).textContent = text;
}

/** Writes every text that depends on the state and the language (on each answer, on a switch). */
function paint() {
  const limits = limitsText();
  setText("amount-help", limits ? `${t("amountHelp")}. ${limits}` : t("amountHelp"));
  setText("submit", t("continue"));
  setText("confirm", t(submitting ? "sending" : "confirm"));
  if (confirming !== null) {
    setText("confirm-amount", shownAmount(confirming));
    setText("confirm-words", amountInWords(confirming, lang));
  }
  $("unusual").hidden = confirming === null || !unusual(confirming);
  showReading();
  if (errorText) setText("amount-error", errorText());
  if (copyStatus) setText("copied", t(copyStatus));
  $("earlier-amount").hidden = earlier === null;
  setText("earlier-amount", earlier === null ? "" : fill("earlierAmount", { amount: shownAmount(earlier) }));
  $("earlier-deposit").hidden = !pendingElsewhere;
  // The notice above says where to send it (or not to send it again): the lead would repeat only
  // half of that.
  $("assigned-lead").hidden = pendingElsewhere;
  $("earlier-settled").hidden = !settled;
  setText("waiting", t(pendingElsewhere ? "waitingEarlier" : "waiting"));
  if (state?.status === "open") deadline("open-until", "openUntil", state.expires_at);
  paintEnding();
  merchantLine();
  const shown = account();
  if (shown) {
    setText(
      "earlier-deposit",
      pendingElsewhere ? fill("earlierDeposit", { amount: shownAmount(shown.amount) }) : "",
    );
    payBy(shown.pay_by);
    // Written only when they change: every poll rewriting them made screen readers read them again.
    setText("v-amount", shownAmount(shown.amount));
    setText("v-bank", shown.bank_name);
    setText("v-holder", shown.holder_name);
    setText("v-iban", groupIban(shown.iban));
    setText("v-code", shown.payment_code ?? "");
  }
}

/** The receipt of an approved deposit, or the reference to quote for a rejected one, as seen. */
function paintEnding() {
  $("receipt").hidden = !(ending === "approved" && seen);
  $("rejected-reference").hidden = !(ending === "rejected" && seen?.reference);
  if (!seen || ending === null) return;
  $("r-merchant-row").hidden = !seen.merchant;
  setText("r-merchant", seen.merchant ?? "");
  setText("r-amount", shownAmount(seen.amount));
  setText("r-time", receiptTime(seen.created_at));
  setText("r-reference", String(seen.reference ?? ""));
  setText(
    "rejected-reference",
    seen.reference ? fill("rejectedReference", { reference: seen.reference }) : "",
  );
}

/** The QR code that opens this page on a phone: on a wide screen, while it can take a payment. */
function handoff() {
  const shown = wide.matches && ["open", "check", "assigned"].includes(screen);
  $("handoff").hidden = !shown;
  const img = $("qr").querySelector("img");
  if (!shown) return img?.remove();
  if (img) return img.setAttribute("alt", t("qrAlt"));
  const qr = document.createElement("img");
  qr.src = `${api}/qr.svg`;
  qr.alt = t("qrAlt");
  qr.width = 180;
  qr.height = 180;
  $("qr").append(qr);
}
wide.addEventListener("change", handoff);

/** The account screen, for this page's deposit or the payer's earlier one. */
function showAccount(shown) {
  values = {
    amount: copyAmount(shown.amount),
    bank: shown.bank_name,
    holder: shown.holder_name,
    iban: shown.iban.replace(/\s+/g, ""),
    code: shown.payment_code ?? "",
  };
  paint();
  show("assigned");
}

function render(next) {
  if (final) return;
  state = next;
  if (typeof next?.merchant_name === "string" && next.merchant_name !== "") merchant = next.merchant_name;
  const back = next?.return_url;
  $("return").hidden = !back;
  if (back) $("return-link").href = back;
  if (!next) {
    final = true;
    stopPolling();
    return show("missing");
  }
  const wasElsewhere = pendingElsewhere;
  pendingElsewhere = next.status === "open" && Boolean(next.earlier_deposit);
  if (pendingElsewhere) {
    confirming = null;
    return showAccount(next.earlier_deposit);
  }
  if (next.status === "open") {
    if (wasElsewhere) {
      // The earlier deposit was decided: a new amount can be sent now, and a refusal shown while
      // it was pending no longer holds.
      settled = true;
      values = {};
      hideManualCopy();
      error(null);
    }
    paint();
    // A check while the payer looks at the amount leaves them there.
    return show(confirming === null ? "open" : "check");
  }
  confirming = null;
  settled = false;
  if (next.status === "assigned") {
    seen = { amount: next.amount, reference: next.reference, created_at: next.created_at, merchant };
    return showAccount(next);
  }
  values = {};
  earlier = null;
  hideManualCopy();
  for (const id of ["v-amount", "v-bank", "v-holder", "v-iban", "v-code"]) setText(id, "");
  // How it ended, when the deposit was decided; else the neutral closed screen.
  ending = next.outcome === "approved" ? "approved" : next.outcome === "rejected" ? "rejected" : "expired";
  clearTimeout(countdownTimer);
  $("expired-title").setAttribute("data-i18n", `${ending}Title`);
  $("expired-text").setAttribute("data-i18n", `${ending}Text`);
  setText("expired-title", t(`${ending}Title`));
  setText("expired-text", t(`${ending}Text`));
  paintEnding();
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

/**
 * Shows an error (a function of the language, or null to clear it). The text is emptied first and
 * written a moment later, so that a screen reader announces the alert again for the same error.
 */
function error(text) {
  errorText = text;
  $("amount-error").textContent = "";
  $("amount-error").hidden = !text;
  $("amount").setAttribute("aria-invalid", text ? "true" : "false");
  if (text)
    setTimeout(() => {
      if (errorText === text) setText("amount-error", text());
    }, 100);
}

/** The one-tap reading of "1.500" under the error, or nothing. */
function showReading() {
  $("reading").hidden = reading === null;
  if (reading !== null) setText("take-reading", fill("takeReading", { amount: shownAmount(reading) }));
}

/** Shows the amount to confirm, large and in words. */
function toConfirm(amount) {
  error(null);
  reading = null;
  confirming = amount;
  paint();
  show("check");
}

$("amount-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const amount = readAmount($("amount").value);
  reading = null;
  if (!amount) {
    const typed = bareAmount($("amount").value);
    // Said for what was typed: "1.500" is most likely 1500, but 1,5 is possible too; the likely
    // reading is one tap away, and goes to the confirmation like any amount.
    if (dottedThousands(typed)) {
      reading = typed.replace(/\./g, "");
      error(() => fill("dottedThousands", { typed, plain: typed.replace(/\./g, "") }));
    } else error(() => t("badAmount"));
    showReading();
    $("amount").focus();
    return;
  }
  // Said at once: sent, it came back with the same words a round trip later (seconds on a slow link).
  if (outsideLimits(amount)) {
    error(() => refusalText(LIMIT_REFUSAL));
    showReading();
    $("amount").focus();
    return;
  }
  toConfirm(amount);
});
$("take-reading").addEventListener("click", () => {
  if (reading === null) return;
  if (outsideLimits(reading)) {
    reading = null;
    error(() => refusalText(LIMIT_REFUSAL));
    showReading();
    return $("amount").focus();
  }
  toConfirm(reading);
});
$("change").addEventListener("click", () => {
  if (submitting) return;
  confirming = null;
  show("open");
  // The amount typed stays in the field, to be corrected rather than typed again.
  $("amount").focus();
});

/** Back to the amount form with a refusal the server gave for the confirmed amount. */
function refused(text) {
  confirming = null;
  show("open");
  error(text);
  $("amount").focus();
}

$("confirm").addEventListener("click", async () => {
  const amount = confirming;
  const button = $("confirm");
  if (amount === null || button.disabled) return;
  button.disabled = true;
  // No check starts while the submit is out, and one already out is ignored when it answers.
  submitting = true;
  setText("confirm", t("sending"));
  stopPolling();
  const seq = ++issued;
  floor = seq;
  const abort = new AbortController();
  const giveUp = setTimeout(() => abort.abort(), SUBMIT_TIMEOUT_MS);
  let late = false;
  /** Refused for something a check shows at once: an earlier deposit, or limits changed meanwhile. */
  let recheck = false;
  try {
    const res = await fetch(`${api}/deposit`, {
      method: "POST",
      cache: "no-store",
      credentials: "omit",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount }),
      signal: abort.signal,
    });
    const body = await res.json().catch(() => ({}));
    if (res.status === 404) return accept(seq, null);
    if (res.status === 429) return refused(() => t("tooMany"));
    if (res.ok) {
      // An amount sent before (another tab, or a submit whose answer was lost) is the one to pay.
      earlier =
        body?.status === "assigned" &&
        Math.round(Number(body.amount) * 100) !== Math.round(Number(amount) * 100)
          ? body.amount
          : null;
      return accept(seq, body);
    }
    refused(() => refusalText(body?.code));
    // Refused for a deposit made meanwhile elsewhere: ask at once, and the page shows where to pay it.
    if (body?.code === PENDING_REFUSAL) recheck = true;
    // Refused by limits the page did not know (an operator changed them since the last check): the
    // refusal names the current ones once the check has brought them.
    if (body?.code === LIMIT_REFUSAL) recheck = true;
  } catch (_e) {
    late = abort.signal.aborted;
    refused(() => t(late ? "slowAnswer" : "failed"));
  } finally {
    clearTimeout(giveUp);
    button.disabled = false;
    submitting = false;
    // Not paint(): it would write a refusal's text at once, which error() writes a moment later so
    // that a screen reader announces the same refusal a second time.
    setText("confirm", t("confirm"));
    // Given up: ask at once what became of it, rather than at the next poll.
    if (late || recheck) check();
    else schedule();
  }
});

function hideManualCopy() {
  $("manual").hidden = true;
  $("manual-value").value = "";
}
/**
 * Says how a copy went in the status line under the account. The line is a live region that is
 * always there, empty when it has nothing to say: a screen reader announces what is written into a
 * region it already knows, where one that appears with its text already in it may go unsaid. The
 * text is emptied first and written a moment later, so a second copy is announced again. (The
 * button pressed shows "Kopyalandı ✓" meanwhile, its name following it; it is no live region.)
 */
function setCopyStatus(key) {
  copyStatus = key;
  $("copied").textContent = "";
  clearTimeout(copyStatusTimer);
  setTimeout(() => {
    if (copyStatus === key) setText("copied", t(key));
  }, 100);
  copyStatusTimer = setTimeout(
    () => {
      copyStatus = null;
      $("copied").textContent = "";
    },
    key === "copied" ? 2000 : 8000,
  );
}
document.addEventListener("click", async (event) => {
  const button = event.target?.closest?.("[data-copy]");
  const key = button?.getAttribute("data-copy");
  if (!key || !values[key]) return;
  const value = values[key];
  try {
    await navigator.clipboard.writeText(value);
    hideManualCopy();
    setCopyStatus("copied");
    // Said on the button pressed too: the status line is under the list, far from it on a phone,
    // and four buttons read "Kopyala". Its name says what it shows meanwhile ("IBAN kopyalandı"):
    // one who presses buttons by speaking their visible words finds it by them.
    const label = button.getAttribute("data-i18n-label");
    button.textContent = `${t("copied")} ✓`;
    button.setAttribute("aria-label", t(label.replace(/^copy/, "copied")));
    setTimeout(() => {
      button.textContent = t("copy");
      button.setAttribute("aria-label", t(label));
    }, 2000);
  } catch (_e) {
    // No clipboard here (an in-app browser, a page not on https): exactly the value the button
    // copies is put in a read-only field and selected, and the payer is told to copy it by hand,
    // so nothing older on the clipboard gets pasted by mistake.
    $("manual").hidden = false;
    $("manual-value").value = value;
    $("manual-value").focus();
    $("manual-value").select();
    setCopyStatus("copyFailed");
  }
});
$("lang").addEventListener("click", () => {
  lang = lang === "tr" ? "en" : "tr";
  saveLanguage(lang);
  applyLanguage();
});

/**
 * The status the server put in the page (`#status`, what the status endpoint answers; null for its
 * 404): the first screen needs no round trip of its own. undefined when the page came without one.
 */
function embeddedStatus() {
  const text = $("status")?.textContent ?? "";
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (_e) {
    return undefined;
  }
}

applyLanguage();
const embedded = embeddedStatus();
if (embedded === undefined) check();
else {
  accept(++issued, embedded);
  schedule();
}
