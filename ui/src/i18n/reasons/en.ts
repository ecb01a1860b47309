/** Why a message is where it is in the queue, what a retry meets, and audit notes. English is the reference. */
export const reasonsEn = {
};
