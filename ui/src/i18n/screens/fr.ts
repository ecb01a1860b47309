import type { screensEn } from "./en";

export const screensFr: { readonly [K in keyof typeof screensEn]: string } = {
};
