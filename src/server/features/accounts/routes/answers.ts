/** An answer without data (data: null). */
export const NO_DATA = { type: 'null', description: 'nothing: the call succeeded' };
