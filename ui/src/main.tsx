import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { isTauri, selectBackend } from "./backend";
import { tauriShell, watchDesktop } from "./desktop/desktop";
import { I18nProvider } from "./i18n/context";
import { createI18n } from "./i18n/i18n";
import { setupTokenOf } from "./views/Setup";
import "./styles.css";
import iconUrl from "../../icons/icon.svg";

const i18n = createI18n(navigator.languages.length > 0 ? navigator.languages : [navigator.language]);
document.documentElement.lang = i18n.locale;
document.title = i18n.t("app.name");

// The favicon is the app icon itself, resolved by the bundler in development and in the build alike.
const favicon = document.createElement("link");
favicon.rel = "icon";
favicon.type = "image/svg+xml";
favicon.href = iconUrl;
document.head.append(favicon);

const connection = selectBackend(window);
// In the desktop window, the tray and desktop notifications follow the engine too.
if (isTauri(window)) watchDesktop(connection.backend, tauriShell(), i18n);

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <I18nProvider value={i18n}>
      <App connection={connection} setupToken={isTauri(window) ? null : setupTokenOf(window.location)} />
    </I18nProvider>
  </StrictMode>,
);
