/** Settings, the navigation and the screens at every width. English is the reference. */
export const screensEn = {
};
