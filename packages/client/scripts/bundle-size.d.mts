/** Types of `bundle-size.mjs` for the tests. */
export declare const ENTRIES: Readonly<Record<"promise" | "effect" | "effectFloor", string>>
export interface Metafile {
  readonly inputs: Readonly<Record<string, unknown>>
  readonly outputs: Readonly<Record<string, { readonly inputs: Readonly<Record<string, { readonly bytesInOutput: number }>> }>>
}
export declare const measure: (
  name: keyof typeof ENTRIES
) => Promise<{ readonly minified: number; readonly gzip: number; readonly metafile: Metafile }>
export declare const byPackage: (metafile: Metafile) => Readonly<Record<string, number>>
