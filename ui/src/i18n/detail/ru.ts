import type { detailEn } from "./en";

export const detailRu: { readonly [K in keyof typeof detailEn]: string } = {
};
