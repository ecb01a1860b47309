import { useState } from "react";
import type { Backend, Connection } from "./backend";
import { AboutPanel } from "./components/AboutPanel";
import { useSession } from "./hooks/useSession";
import { useI18n } from "./i18n/context";
import { ApiKeys } from "./views/ApiKeys";
import { Messages } from "./views/Messages";
import { SignIn } from "./views/SignIn";
import logoUrl from "../../icons/icon.svg";

/**
 * The app: in a browser, the sign-in screen until the engine accepts a key (and again as soon as
 * it stops accepting it); in the desktop window, the sections at once.
 */
export function App({ connection }: { connection: Connection }) {
  const { t } = useI18n();
  const { backend, signIn } = connection;
  const session = useSession(signIn?.session ?? null);
  const signedIn = signIn === null || session.key !== null;

  return (
    <>
      <header className="app-header">
        <div className="brand">
          <img className="brand-mark" src={logoUrl} alt="" width="32" height="32" />
          <h1 className="brand-name">{t("app.name")}</h1>
        </div>
        <p className="brand-tagline">{t("app.tagline")}</p>
        {signIn !== null && signedIn && (
          <button
            type="button"
            className="button button-secondary header-action"
            onClick={() => signIn.session.signOut()}
            data-testid="sign-out"
          >
            {t("session.signOut")}
          </button>
        )}
      </header>
      <main className="app-main">
        {signedIn ? (
          // A new key starts from a clean slate: nothing loaded with the previous one stays on screen.
          <Sections key={session.key ?? "operator"} backend={backend} />
        ) : (
          <SignIn signIn={signIn} refused={session.refused} />
        )}
      </main>
    </>
  );
}

const SECTIONS = ["messages", "keys", "about"] as const;
type Section = (typeof SECTIONS)[number];

function Sections({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const [section, setSection] = useState<Section>("messages");
  return (
    <>
      <nav className="app-nav" aria-label={t("nav.label")}>
        <ul>
          {SECTIONS.map((s) => (
            <li key={s}>
              <button
                type="button"
                className="nav-item"
                aria-current={s === section ? "page" : undefined}
                onClick={() => setSection(s)}
                data-testid={`nav-${s}`}
              >
                {t(`nav.${s}`)}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      {section === "messages" && <Messages backend={backend} />}
      {section === "keys" && <ApiKeys backend={backend} />}
      {section === "about" && <AboutPanel backend={backend} />}
    </>
  );
}
