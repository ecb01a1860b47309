import type { detailEn } from "./en";

export const detailFr: { readonly [K in keyof typeof detailEn]: string } = {
};
