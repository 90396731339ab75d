import { useState } from "preact/hooks";
import { api } from "./api";
import { Field, useShell } from "./ui";

interface Started {
  secret: string;
  uri: string;
  /** The QR code's modules, one string of 0 and 1 per row (drawn here: no QR library in the page). */
  qr: string[];
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
}) {
  const { t, me, notify } = useShell();
  const on = me.second_factor;
  const [started, setStarted] = useState<Started | null>(null);
  const value = (form: HTMLFormElement, n: string) => (form.elements.namedItem(n) as HTMLInputElement).value;

  async function confirmOrRemove(e: Event, step: "confirm" | "remove") {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const res = await api<{ csrf_token?: string }>("POST", `/second-factor/${step}`, {
      password: value(form, "sf-password"),
      code: value(form, "sf-code"),
    });
    if (!res.ok) {
      // The two answers an operator meets here, in the console's language; anything else as sent.
      if (res.status === 423) return notify(t("lockedSignedOut"), true);
      const wrong = res.status === 400 && res.json.message === "password or code is wrong";
      return notify(wrong ? t("badPasswordOrCode") : (res.json.message ?? String(res.status)), true);
    }
    form.reset();
    setStarted(null);
    if (res.json.csrf_token) props.done(res.json.csrf_token);
    props.changed(step === "confirm");
    notify(t(step === "confirm" ? "secondFactorEnabled" : "secondFactorRemoved"));
  }

  const codeAndPassword = (
    <>
      <Field label={t("totpCode")}>
        <input
          name="sf-code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9 ]{6,7}"
          maxLength={7}
          required
        />
      </Field>
      <Field label={t("current")}>
        <input name="sf-password" type="password" autoComplete="current-password" required />
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
          {codeAndPassword}
          <button type="submit">{t("confirmSecondFactor")}</button>
        </form>
      )}
      {on && props.required && <p id="sf-required-note">{t("secondFactorKept")}</p>}
      {on && !props.required && (
        <form onSubmit={(e) => confirmOrRemove(e, "remove")}>
          {codeAndPassword}
          <button type="submit" class="secondary">
            {t("removeSecondFactor")}
          </button>
        </form>
      )}
    </section>
  );
}
