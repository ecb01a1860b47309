/** Setup's country, numbers as people type them, the pace, dates and form checks. English is the reference. */
export const dayEn = {
};
