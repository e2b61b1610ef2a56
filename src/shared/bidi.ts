/**
 * Bidirectional control characters (U+202E RIGHT-TO-LEFT OVERRIDE and its kin: the marks,
 * embeddings, overrides and isolates of Unicode TR9). Report data is written by strangers, who can
 * use them to make a value read as something it is not ("\u202egnp.exe" shows as "exe.png").
 * Wherever such text is shown (tree items, tooltips, titles, the webview) they become their
 * escape, `\u202e`, which is also how JSON may write them; the data itself (copy, export) is left
 * exactly as sent. No `vscode` import: the webview uses it too.
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function revealBidi(text: string): string {
  return BIDI_CONTROL.test(text) ? text.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}
