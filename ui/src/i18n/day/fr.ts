import type { dayEn } from "./en";

export const dayFr: { readonly [K in keyof typeof dayEn]: string } = {
};
