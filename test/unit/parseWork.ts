// The work a JSON scanner does, counted (for the scanners' contract tests): JSON.parse calls and
// the characters given to them, and String#charCodeAt calls, i.e. characters read one by one.

export interface Work { parses: number; parsed: number; longest: number; chars: number }

/** Runs `f` with JSON.parse and String#charCodeAt counted, then puts both back. */
export function measure<T>(f: () => T): { value: T } & Work {
  const parse = JSON.parse;
  const charCodeAt = String.prototype.charCodeAt;
  const w: Work = { parses: 0, parsed: 0, longest: 0, chars: 0 };
  JSON.parse = ((s: string, r?: Parameters<typeof JSON.parse>[1]) => {
    w.parses++;
    w.parsed += s.length;
    w.longest = Math.max(w.longest, s.length);
    return parse(s, r);
  }) as typeof JSON.parse;
  String.prototype.charCodeAt = function (this: string, i: number): number {
    w.chars++;
    return charCodeAt.call(this, i);
  };
  try {
    return { value: f(), ...w };
  } finally {
    JSON.parse = parse;
    String.prototype.charCodeAt = charCodeAt;
  }
}
