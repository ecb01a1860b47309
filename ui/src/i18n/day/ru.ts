import type { dayEn } from "./en";

export const dayRu: { readonly [K in keyof typeof dayEn]: string } = {
};
