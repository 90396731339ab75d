import { useEffect, useState } from "preact/hooks";
import type { SecondFactorStartView as Started } from "../../src/operators/views.js";
import { api } from "./api";
import { refusalCode, refusalIn } from "./decision-text";
import { Field, useShell } from "./ui";

/**
 * A code field that takes six digits or a recovery code (`xxxxx-xxxxx`, any case, the dash and
 * spaces optional): letters too, so no numeric keypad.
 */
export const CODE_PATTERN = "[0-9A-Za-z \\-]{6,13}";
export const CODE_MAX = 13;

/**
 * Recovery codes just made: shown once, with a copy button and a note to keep them safe, above
 * whatever screen the console opens on (where it requires two-step sign-in, the one asked for).
 */
export function RecoveryCodes({ codes, dismiss }: { codes: string[]; dismiss(): void }) {
  const { t, notify } = useShell();
  return (
    <section id="recovery-codes" class="panel form narrow">
      <h2>{t("recoveryCodes")}</h2>
      <p id="recovery-note">{t("recoveryCodesNote")}</p>
      <ol id="recovery-code-list">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <button
        type="button"
        id="recovery-copy"
        class="secondary"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(codes.join("\n"));
            notify(t("codesCopied"));
          } catch {
            notify(t("copyFailed"), true);
          }
        }}
      >
        {t("copyCodes")}
      </button>{" "}
      <button type="button" id="recovery-saved" onClick={dismiss}>
        {t("codesSaved")}
      </button>
    </section>
  );
}

/** The QR code as SVG, with the four-module quiet zone scanners need; one path, crisp at any size. */
function QrCode({ rows, label }: { rows: string[]; label: string }) {
  const size = rows.length + 8;
  let d = "";
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === "1") d += `M${x + 4} ${y + 4}h1v1h-1z`;
  });
  return (
    <svg
      id="qr"
      viewBox={`0 0 ${size} ${size}`}
      width="220"
      height="220"
      role="img"
      aria-label={label}
      shape-rendering="crispEdges"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}

/**
 * The signed-in operator's second factor (docs/console.md): set up by scanning a QR code and
 * confirming with a code and the password; turned off with a code and the password.
 */
export function SecondFactor(props: {
  done(csrf: string): void;
  changed(on: boolean): void;
  /** The console requires it: once on, it cannot be turned off here (an admin resets it). */
  required: boolean;
  /** Recovery codes just made: the app shows them above the screen (RecoveryCodes). */
  codes: string[] | null;
  showCodes(codes: string[] | null): void;
}) {
  const { t, me, notify } = useShell();
  const on = me.second_factor;
  const [started, setStarted] = useState<Started | null>(null);
  const [left, setLeft] = useState<number | null>(null);
  const value = (form: HTMLFormElement, n: string) => (form.elements.namedItem(n) as HTMLInputElement).value;
  // How many recovery codes are left, read again whenever they may have changed.
  useEffect(() => {
    if (!on) return setLeft(null);
    api<{ recovery_codes_left?: number }>("GET", "/me").then((res) => {
      if (res.ok) setLeft(res.json.recovery_codes_left ?? 0);
    });
  }, [on, props.codes]);

  async function confirmOrRemove(e: Event, step: "confirm" | "remove" | "recovery-codes") {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    // The new-codes form has its own field names: the remove form's are `sf-`.
    const prefix = step === "recovery-codes" ? "rc" : "sf";
    const res = await api<{ csrf_token?: string; recovery_codes?: string[] }>(
      "POST",
      `/second-factor/${step}`,
      { password: value(form, `${prefix}-password`), code: value(form, `${prefix}-code`) },
    );
    if (!res.ok) {
      // The two answers an operator meets here, in the console's language; anything else as sent.
      if (res.status === 423) return notify(t("lockedSignedOut"), true);
      const wrong = refusalCode(res.json) === "wrong_password_or_code";
      // Setting up takes the new authenticator's code only; the others take a recovery code too.
      const text = step === "confirm" ? "badPasswordOrCode" : "badPasswordOrAnyCode";
      return notify(wrong ? t(text) : refusalIn(res.json, res.status), true);
    }
    form.reset();
    setStarted(null);
    props.showCodes(res.json.recovery_codes ?? null);
    if (step === "recovery-codes") return notify(t("newRecoveryCodesDone"));
    if (res.json.csrf_token) props.done(res.json.csrf_token);
    props.changed(step === "confirm");
    notify(t(step === "confirm" ? "secondFactorEnabled" : "secondFactorRemoved"));
  }

  /** `recovery`: the code may be a recovery code (the second factor that is on is asked for). */
  const codeAndPassword = (recovery: boolean, prefix = "sf") => (
    <>
      <Field label={t(recovery ? "codeOrRecovery" : "totpCode")}>
        <input
          name={`${prefix}-code`}
          autoComplete="one-time-code"
          {...(recovery
            ? { pattern: CODE_PATTERN, maxLength: CODE_MAX, autoCapitalize: "none", spellcheck: false }
            : { inputMode: "numeric", pattern: "[0-9 ]{6,7}", maxLength: 7 })}
          required
        />
      </Field>
      <Field label={t("current")}>
        <input name={`${prefix}-password`} type="password" autoComplete="current-password" required />
      </Field>
    </>
  );

  return (
    <section id="second-factor" class="panel form narrow">
      <h2>{t("secondFactor")}</h2>
      <p id="sf-state">{t(on ? "secondFactorOn" : "secondFactorOff")}</p>
      {!on && !started && (
        <button
          type="button"
          id="sf-start"
          onClick={async () => {
            const res = await api<Started>("POST", "/second-factor");
            if (!res.ok) return notify(res.json.message ?? String(res.status), true);
            setStarted(res.json);
          }}
        >
          {t("setUpSecondFactor")}
        </button>
      )}
      {!on && started && (
        <form onSubmit={(e) => confirmOrRemove(e, "confirm")}>
          <p>{t("scanCode")}</p>
          <QrCode rows={started.qr} label={t("secondFactor")} />
          <p>
            <code id="sf-secret">{started.secret.replace(/(.{4})/g, "$1 ").trim()}</code>
          </p>
          {codeAndPassword(false)}
          <button type="submit">{t("confirmSecondFactor")}</button>
        </form>
      )}
      {on && props.required && <p id="sf-required-note">{t("secondFactorKept")}</p>}
      {on && !props.required && (
        <form id="sf-remove" onSubmit={(e) => confirmOrRemove(e, "remove")}>
          {codeAndPassword(true)}
          <button type="submit" class="secondary">
            {t("removeSecondFactor")}
          </button>
        </form>
      )}
      {on && (
        <form id="recovery-new" onSubmit={(e) => confirmOrRemove(e, "recovery-codes")}>
          <h3>{t("recoveryCodes")}</h3>
          {left !== null && <p id="recovery-left">{t("recoveryCodesLeft").replace("{n}", String(left))}</p>}
          <p>{t("newRecoveryCodesNote")}</p>
          {codeAndPassword(true, "rc")}
          <button type="submit" class="secondary">
            {t("newRecoveryCodes")}
          </button>
        </form>
      )}
    </section>
  );
}
