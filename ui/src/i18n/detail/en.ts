/** The message page, its retry guard and the exceptions' decisions. English is the reference. */
export const detailEn = {
};
