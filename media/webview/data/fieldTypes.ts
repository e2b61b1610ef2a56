/**
 * A field's value codes: one byte each where its values are at most 256, two where at most 65,536
 * (once the rows are all in: Fields.compact), four otherwise and while rows arrive.
 */
export type FieldCodes = Uint8Array | Uint16Array | Uint32Array;
/** A single-valued field, dictionary-coded: row i has value dict[codes[i]]. */
export interface SingleField { readonly kind: 'single'; readonly dict: readonly string[]; readonly codes: FieldCodes }
/** A multi-valued field (DKIM domains, rDNS names), CSR style: row i's distinct value codes are codes[start[i]] … codes[start[i+1]-1]; a row may have none. */
export interface MultiField { readonly kind: 'multi'; readonly dict: readonly string[]; readonly start: Uint32Array; readonly codes: FieldCodes }
export type FieldIndex = SingleField | MultiField;
/** Per-row numeric facts. Arrays may be longer than `length`. */
export interface Facts {
  readonly length: number;
  readonly emails: Float64Array;      // email count of the row (finite, >= 0)
  readonly dateMs: Float64Array;      // the row's date as epoch ms UTC; NaN when unknown
  readonly dmarcPass: Uint8Array;     // 1 when the row passes DMARC (aligned SPF or aligned DKIM = pass)
  readonly spfAligned: Uint8Array;    // 1 when aligned SPF = pass
  readonly dkimAligned: Uint8Array;   // 1 when aligned DKIM = pass
  readonly disposition: Uint8Array;   // 0 none, 1 quarantine, 2 reject, 3 anything else
}
