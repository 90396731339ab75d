import { useState } from "preact/hooks";
import type { SignedInView } from "../../src/operators/views.js";
import { idle } from "./activity";
import { api, setCsrf } from "./api";
import type { Unsent } from "./held-decisions";
import { CODE_MAX, CODE_PATTERN } from "./second-factor";
import type { Operator, Shell } from "./ui";

/** What the server says of a session and its settings, at sign-in and on `GET /me`. */
export type SignedIn = SignedInView;

export const unsentText = (list: Unsent[], t: Shell["t"]) =>
  t("unsent").replace(
    "{list}",
    list.map((u) => `#${u.id} (${t(u.kind === "approve" ? "unsentApprove" : "unsentReject")})`).join(", "),
  );

/** Why the last session ended, which the sign-in form says. */
export type Ended = "expired" | "idle" | "limit" | null;

export const undoMsOf = (s: SignedIn) => Math.max(0, Math.min(30, s.decision_undo_seconds ?? 0)) * 1000;

/** The sign-in form: e-mail and password, then the second factor's code when the operator has one. */
export function Login({
  t,
  signedIn,
  ended,
  changeRefused,
  unsent,
}: {
  t: Shell["t"];
  signedIn(o: Operator, settings: SignedIn): void;
  ended: Ended;
  changeRefused: boolean;
  unsent: Unsent[];
}) {
  const [error, setError] = useState("");
  /** The password was right and the operator has a second factor: the code is asked next. */
  const [needCode, setNeedCode] = useState(false);
  /** The operator chose to type a recovery code instead of the authenticator's. */
  const [recovery, setRecovery] = useState(false);
  return (
    <form
      id="login"
      onSubmit={async (e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const value = (n: string) => (form.elements.namedItem(n) as HTMLInputElement).value;
        const res = await api<SignedIn & { second_factor?: string }>("POST", "/login", {
          email: value("email"),
          password: value("password"),
          ...(needCode ? { code: value("code") } : {}),
        });
        if (!res.ok) {
          if (res.status === 401 && res.json.second_factor === "totp") {
            setError(needCode ? t(recovery ? "badRecoveryCode" : "badCode") : "");
            (form.elements.namedItem("code") as HTMLInputElement | null)?.select();
            return setNeedCode(true);
          }
          // The server is busy (a flood of sign-ins): nothing was checked, so the step stays.
          if (res.status === 503) return setError(t("signInBusy"));
          setNeedCode(false);
          return setError(t(res.status === 423 ? "locked" : res.status === 429 ? "throttled" : "badLogin"));
        }
        setCsrf(res.json.csrf_token);
        signedIn(res.json.operator, res.json);
      }}
    >
      <h1>{t("signIn")}</h1>
      {ended === "expired" && (
        <p id="login-expired" class="error" role="alert">
          {t("sessionExpired")}
          {changeRefused && ` ${t("lastActionUnsaved")}`}
        </p>
      )}
      {ended === "limit" && (
        <p id="login-limit" class="error" role="alert">
          {t("limitSignedOut")}
        </p>
      )}
      {ended === "idle" && (
        <p id="login-idle" class="error" role="alert">
          {t("idleSignedOut").replace("{n}", String(idle.minutes()))}
        </p>
      )}
      {unsent.length > 0 && (
        <p id="login-unsent" class="error" role="alert">
          {unsentText(unsent, t)}
        </p>
      )}
      <label for="email">{t("email")}</label>
      {/* biome-ignore lint/a11y/noAutofocus: the sign-in form is the only thing on the page */}
      <input id="email" name="email" type="email" autoComplete="username" required autoFocus />
      <label for="password">{t("password")}</label>
      <input id="password" name="password" type="password" autoComplete="current-password" required />
      {needCode && (
        <>
          <p id="login-code-hint">{t(recovery ? "enterRecoveryCode" : "enterCode")}</p>
          <label for="code">{t(recovery ? "recoveryCode" : "totpCode")}</label>
          <input
            // A new field for the other kind: its keyboard and checks differ, and it starts empty.
            key={recovery ? "recovery" : "totp"}
            id="code"
            name="code"
            aria-describedby="login-code-hint"
            autoComplete="one-time-code"
            // The six digits get a phone's number pad; a recovery code (`xxxxx-xxxxx`, any case,
            // dash and spaces optional) needs letters.
            {...(recovery
              ? { pattern: CODE_PATTERN, maxLength: CODE_MAX, autoCapitalize: "none", spellcheck: false }
              : { inputMode: "numeric", pattern: "[0-9 ]{6,7}", maxLength: 7 })}
            required
            // biome-ignore lint/a11y/noAutofocus: the code is the one thing left to type
            autoFocus
          />
          <button type="button" id="use-recovery" class="link" onClick={() => setRecovery(!recovery)}>
            {t(recovery ? "useAuthenticator" : "useRecoveryCode")}
          </button>
        </>
      )}
      {error && (
        <p id="login-error" class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit">{t("signIn")}</button>
    </form>
  );
}
