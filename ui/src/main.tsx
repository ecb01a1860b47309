import { StrictMode, useEffect, useLayoutEffect, useRef } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { isTauri, selectBackend, type Backend } from "./backend";
import { tauriShell, watchDesktop } from "./desktop/desktop";
import { applyTheme, browserStorage, preferredLanguages, readChoice } from "./display/display";
import { DisplayProvider } from "./display/DisplayProvider";
import { useI18n } from "./i18n/context";
import { pickLocale } from "./i18n/i18n";
import { setupTokenOf } from "./views/Setup";
import "./styles.css";
import iconUrl from "../../icons/icon.svg";

const system = navigator.languages.length > 0 ? navigator.languages : [navigator.language];
const storage = browserStorage(window);

// Before the first paint, this browser's last choice (or the system's); once the engine says who
// is signed in, the DisplayProvider follows that person's.
const early = readChoice(storage, null);
applyTheme(document.documentElement, early.theme);
document.documentElement.lang = pickLocale(preferredLanguages(early.language, system)).locale;

// The favicon is the app icon itself, resolved by the bundler in development and in the build alike.
const favicon = document.createElement("link");
favicon.rel = "icon";
favicon.type = "image/svg+xml";
favicon.href = iconUrl;
document.head.append(favicon);

const connection = selectBackend(window);

/** In the desktop window, the tray and desktop notifications follow the engine too, in the language in force. */
function DesktopWatch({ backend }: { backend: Backend }) {
  const i18n = useI18n();
  const words = useRef(i18n);
  useLayoutEffect(() => {
    words.current = i18n;
  }, [i18n]);
  useEffect(() => watchDesktop(backend, tauriShell(), () => words.current), [backend]);
  return null;
}

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <DisplayProvider session={connection.session} system={system} storage={storage}>
      {isTauri(window) && <DesktopWatch backend={connection.backend} />}
      <App connection={connection} setupToken={isTauri(window) ? null : setupTokenOf(window.location)} />
    </DisplayProvider>
  </StrictMode>,
);
