/**
 * The operator console (docs/console.md): Preact, bundled at build time by esbuild into one file
 * served from /ops, no third-party requests. Screens are addressed by the URL's hash so a view can
 * be reloaded, bookmarked and shared: #/deposits, #/transactions/42?reference=…, #/audit?actor=….
 */
import { type ComponentChildren, render } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { idleMinutesAre, sessionStarted } from "./activity";
import { api, setCsrf, whenSignedOut } from "./api";
import { Audit } from "./audit";
import { Balances } from "./balances";
import { BALANCE_WORDS } from "./balances-words";
import { Summary } from "./dashboard";
import { Firms } from "./firms";
import { sendHeldNow, useUnsent } from "./held-decisions";
import { type Lang, translator } from "./i18n";
import { IdleWarning, idleTimeUp, LimitWarning, limitTimeUp, useIdleSignOut } from "./idle";
import { type Ended, Login, type SignedIn, undoMsOf, unsentText } from "./login";
import { roleLabel } from "./manage";
import { Operators, PasswordForm } from "./operators";
import { Payouts } from "./payouts";
import { PAYOUT_WORDS } from "./payouts-words";
import { Pool } from "./pool";
import { Providers } from "./providers";
import { Queue } from "./queue";
import { RecoveryCodes, SecondFactor } from "./second-factor";
import { StatementLines } from "./statement-lines";
import { Transactions } from "./transactions";
import { isAdmin, Notice, type Operator, type Shell, ShellContext, useShell } from "./ui";

const LANG_KEY = "payintake.ops.lang";

function useHash(): [string, URLSearchParams] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  const [path = "", search = ""] = hash.replace(/^#/, "").split("?");
  return [path || "/deposits", new URLSearchParams(search)];
}

/**
 * The focus on the screen's heading after sign-in: the form that had it is gone, so a screen reader
 * says where the operator now is, and Tab starts from the top of the screen, not from the page's
 * beginning.
 */
function focusHeading() {
  const heading = document.querySelector<HTMLElement>("main h1, main h2");
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}

function App() {
  const [lang, setLang] = useState<Lang>(localStorage.getItem(LANG_KEY) === "en" ? "en" : "tr");
  const t = useMemo(() => translator(lang), [lang]);
  const [me, setMe] = useState<Operator | null | undefined>(undefined);
  /** The console requires a second factor (PAYINTAKE_CONSOLE_REQUIRE_SECOND_FACTOR). */
  const [required, setRequired] = useState(false);
  /** How long a decision is held before it is sent, so that it can be taken back (held-decisions.ts). */
  const [undoMs, setUndoMs] = useState(0);
  /** What an empty share of the caps means in the firm form (PAYINTAKE_DEFAULT_CAP_SHARE). */
  const [defaultCapShare, setDefaultCapShare] = useState(100);
  /**
   * The session ended under the operator (expired, or switched off), for want of activity, or at
   * the end of its 12 hours (idle.tsx): the sign-in form says which.
   */
  const [ended, setEnded] = useState<Ended>(null);
  /**
   * A change the operator made was refused because the session had ended: only then is the last
   * action said not to be saved (a read refused, the page's own refresh, lost nothing).
   */
  const [changeRefused, setChangeRefused] = useState(false);
  const [notice, setNotice] = useState({ text: "", bad: false });
  /**
   * Recovery codes just made, shown above the screen until dismissed or another screen is opened
   * (kept here: turning two-step sign-in on where the console requires it swaps the setup screen
   * for the one the operator asked for).
   */
  const [freshCodes, setFreshCodes] = useState<string[] | null>(null);
  /** Counts sign-ins through the form: each moves the focus to the screen's heading. */
  const [signIns, setSignIns] = useState(0);
  useEffect(() => {
    if (signIns > 0) focusHeading();
  }, [signIns]);
  const [path, filter] = useHash();
  /** Held decisions a session's end kept from being sent (held-decisions.ts): named at sign-in and after. */
  const unsent = useUnsent();
  // One that came back refused after the sign-in screen was passed (a slow answer): said at once.
  useEffect(() => {
    if (!me || unsent.list.length === 0) return;
    const notSent = unsent.take(me.email);
    if (notSent.length > 0) setNotice({ text: unsentText(notSent, t), bad: true });
  }, [me, unsent.list]);

  useEffect(() => {
    document.documentElement.lang = lang;
    localStorage.setItem(LANG_KEY, lang);
  }, [lang]);
  useEffect(() => {
    whenSignedOut((refused) => {
      setMe((was) => {
        if (was) setEnded(limitTimeUp() ? "limit" : idleTimeUp() ? "idle" : "expired");
        return null;
      });
      if (refused) setChangeRefused(true);
    });
    api<SignedIn>("GET", "/me").then((res) => {
      if (!res.ok) return setMe(null);
      setCsrf(res.json.csrf_token);
      setRequired(res.json.second_factor_required === true);
      setUndoMs(undoMsOf(res.json));
      setDefaultCapShare(res.json.default_cap_share ?? 100);
      idleMinutesAre(res.json.session_idle_minutes ?? 0);
      setMe(res.json.operator);
    });
  }, []);

  const signOut = useSignOut(setEnded, setMe);
  const idleWatch = useIdleSignOut(!!me, (why) => void signOut(why));
  useEffect(() => setNotice({ text: "", bad: false }), [path]);
  useEffect(() => setFreshCodes(null), [path]);

  // Until the operator has one, a console that requires a second factor shows only its setup (the
  // server refuses everything else).
  const setUpFirst = !!me && required && !me.second_factor;
  // The same settings in both places: alone while it must be set up first, else under the password.
  const secondFactor = (
    <SecondFactor
      done={(csrf) => setCsrf(csrf)}
      changed={(on) => setMe((m) => m && { ...m, second_factor: on })}
      required={required}
      codes={freshCodes}
      showCodes={setFreshCodes}
    />
  );
  const shell: Shell | null = me
    ? { t, lang, me, undoMs, defaultCapShare, notify: (text, bad = false) => setNotice({ text, bad }) }
    : null;
  const section = sectionOf(path);
  const [, , idText] = path.split("/");
  const id = idText && /^\d+$/.test(idText) ? Number(idText) : undefined;

  return (
    <>
      <Header
        t={t}
        lang={lang}
        me={me}
        setUpFirst={setUpFirst}
        section={section}
        switchLang={() => setLang(lang === "tr" ? "en" : "tr")}
        signOut={() => signOut("asked")}
      />
      <main>
        {me && idleWatch.warnSeconds !== null && (
          <IdleWarning t={t} seconds={idleWatch.warnSeconds} stay={idleWatch.stay} />
        )}
        {me && idleWatch.limitAt !== null && (
          <LimitWarning t={t} lang={lang} at={idleWatch.limitAt} signInAgain={() => void signOut("asked")} />
        )}
        {me === null && (
          <Login
            t={t}
            ended={ended}
            changeRefused={changeRefused}
            unsent={unsent.list}
            signedIn={(o, settings) => {
              setEnded(null);
              setChangeRefused(false);
              sessionStarted(settings.session_idle_minutes ?? 0);
              const notSent = unsent.take(o.email);
              if (notSent.length > 0) setNotice({ text: unsentText(notSent, t), bad: true });
              setRequired(settings.second_factor_required === true);
              setUndoMs(undoMsOf(settings));
              setDefaultCapShare(settings.default_cap_share ?? 100);
              setMe(o);
              setSignIns((n) => n + 1);
            }}
          />
        )}
        {shell && setUpFirst && (
          <ShellContext.Provider value={shell}>
            <Notice text={notice.text} bad={notice.bad} />
            <p id="sf-required" class="panel narrow">
              {t("secondFactorRequired")}
            </p>
            {secondFactor}
          </ShellContext.Provider>
        )}
        {shell && !setUpFirst && (
          <ShellContext.Provider value={shell}>
            <Notice text={notice.text} bad={notice.bad} />
            {freshCodes && <RecoveryCodes codes={freshCodes} dismiss={() => setFreshCodes(null)} />}
            <Screen section={section} filter={filter} id={id} secondFactor={secondFactor} />
          </ShellContext.Provider>
        )}
      </main>
    </>
  );
}

/** The console's sign-out, one at a time: a second one asked for while the first runs does nothing. */
function useSignOut(setEnded: (why: Ended) => void, setMe: (me: null) => void) {
  const signingOut = useRef(false);
  /** Asked for, for want of activity, or at the end of the session's 12 hours (idle.tsx). */
  async function signOut(why: "asked" | "idle" | "limit") {
    if (signingOut.current) return;
    signingOut.current = true;
    try {
      // Decisions the queue still holds go first, while the session can send them.
      await sendHeldNow();
      const out = api("POST", "/logout");
      // Out of reach, the server ends the session by itself: the page must not stay open.
      await (why === "asked" ? out : out.catch(() => {}));
      setCsrf(null);
      setEnded(why === "asked" ? null : why);
      setMe(null);
    } finally {
      signingOut.current = false;
    }
  }
  return signOut;
}

const SECTIONS = [
  "deposits",
  "withdrawals",
  "payouts",
  "transactions",
  "statement-lines",
  "summary",
  "balances",
  "firms",
  "pool",
  "providers",
  "operators",
  "audit",
  "password",
];

/** The screen a path names: an unknown or empty address opens the deposit queue rather than a blank page. */
function sectionOf(path: string): string {
  const [, asked = ""] = path.split("/");
  return SECTIONS.includes(asked) ? asked : "deposits";
}

function Header(props: {
  t: Shell["t"];
  lang: Lang;
  me: Operator | null | undefined;
  setUpFirst: boolean;
  section: string;
  switchLang(): void;
  signOut(): void;
}) {
  const { t, me, setUpFirst, section } = props;
  const tabs: [string, string][] = [
    ["/deposits", t("deposits")],
    ["/withdrawals", t("withdrawals")],
    ["/payouts", PAYOUT_WORDS.payouts[props.lang]],
    ["/transactions", t("transactions")],
    ["/statement-lines", t("statementLines")],
    ["/summary", t("summary")],
    // Every firm's money and the company's bank accounts: admins only (docs/console.md).
    ...(me && isAdmin(me.role)
      ? ([["/balances", BALANCE_WORDS.balances[props.lang]]] as [string, string][])
      : []),
    ["/firms", t("firms")],
    ["/pool", t("pool")],
    ["/providers", t("providers")],
    ...(me && isAdmin(me.role) ? ([["/operators", t("operators")]] as [string, string][]) : []),
    ["/audit", t("audit")],
  ];
  return (
    <header>
      <strong class="brand">payintake</strong>
      {me && !setUpFirst && (
        <nav id="nav">
          {tabs.map(([to, label]) => (
            <a
              key={to}
              class="tab"
              href={`#${to}`}
              data-tab={to.slice(1)}
              aria-current={`/${section}` === to ? "page" : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
      )}
      <span id="who">{me ? `${me.email} (${roleLabel(me.role, t)})` : ""}</span>
      {me && !setUpFirst && (
        <a class="link" href="#/password">
          {t("password")}
        </a>
      )}
      <button type="button" id="lang" class="link" onClick={props.switchLang}>
        {t("other")}
      </button>
      {me && (
        <button type="button" id="logout" class="link" onClick={props.signOut}>
          {t("logout")}
        </button>
      )}
    </header>
  );
}

/** The screen the address asks for, inside the shell (the operator is signed in and set up). */
function Screen(props: {
  section: string;
  filter: URLSearchParams;
  id: number | undefined;
  secondFactor: ComponentChildren;
}) {
  const { me } = useShell();
  const { section, filter, id, secondFactor } = props;
  return (
    <>
      {section === "deposits" && <Queue key="deposit" type="deposit" />}
      {section === "withdrawals" && <Queue key="withdrawal" type="withdrawal" />}
      {section === "payouts" && <Payouts filter={filter} id={id} />}
      {section === "transactions" && <Transactions filter={filter} id={id} />}
      {section === "statement-lines" && <StatementLines filter={filter} id={id} />}
      {section === "summary" && <Summary />}
      {section === "balances" && isAdmin(me.role) && <Balances filter={filter} id={id} />}
      {section === "firms" && <Firms id={id} />}
      {section === "pool" && <Pool />}
      {section === "providers" && <Providers />}
      {section === "operators" && isAdmin(me.role) && <Operators />}
      {section === "audit" && <Audit filter={filter} />}
      {section === "password" && (
        <>
          <PasswordForm done={(csrf) => setCsrf(csrf)} />
          {secondFactor}
        </>
      )}
    </>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
