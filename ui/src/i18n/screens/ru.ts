import type { screensEn } from "./en";

export const screensRu: { readonly [K in keyof typeof screensEn]: string } = {
};
