import type { reasonsEn } from "./en";

export const reasonsRu: { readonly [K in keyof typeof reasonsEn]: string } = {
};
