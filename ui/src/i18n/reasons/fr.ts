import type { reasonsEn } from "./en";

export const reasonsFr: { readonly [K in keyof typeof reasonsEn]: string } = {
};
