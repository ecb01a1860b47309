import type { Backend } from "./backend";
import { AboutPanel } from "./components/AboutPanel";
import { useI18n } from "./i18n/context";
import logoUrl from "../../icons/icon.svg";

export function App({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  return (
    <>
      <header className="app-header">
        <div className="brand">
          <img className="brand-mark" src={logoUrl} alt="" width="32" height="32" />
          <h1 className="brand-name">{t("app.name")}</h1>
        </div>
        <p className="brand-tagline">{t("app.tagline")}</p>
      </header>
      <main className="app-main">
        <AboutPanel backend={backend} />
      </main>
    </>
  );
}
