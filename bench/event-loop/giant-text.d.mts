/** See giant-text.mjs. */
export declare const makeGiantText: (size: number) => string
