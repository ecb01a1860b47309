import { createContext, useContext } from "react";
import { createI18n, type I18n } from "./i18n";

const I18nContext = createContext<I18n>(createI18n([]));

export const I18nProvider = I18nContext.Provider;

export function useI18n(): I18n {
  return useContext(I18nContext);
}
