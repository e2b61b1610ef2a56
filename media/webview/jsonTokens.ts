/**
 * Splits JSON text into coloured tokens for the detail pane. The text is the host's
 * pretty-printed row; the scanner still accepts anything (a character it does not expect becomes
 * plain text), since it only colours and never interprets.
 */

export type TokenKind = 'key' | 'string' | 'number' | 'boolean' | 'null' | 'punctuation' | 'text';

export interface Token {
  kind: TokenKind;
  text: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE = /[ \t\r\n]+/y;

export function tokenizeJson(src: string): Token[] {
  const out: Token[] = [];
  const push = (kind: TokenKind, text: string): void => {
    const last = out[out.length - 1];
    if (last && last.kind === kind && (kind === 'text' || kind === 'punctuation')) last.text += text;
    else out.push({ kind, text });
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      j = Math.min(j + 1, src.length);
      const text = src.slice(i, j);
      // A string is a key when the next non-space character is a colon.
      let k = j;
      while (k < src.length && (src[k] === ' ' || src[k] === '\t' || src[k] === '\r' || src[k] === '\n')) k++;
      push(src[k] === ':' ? 'key' : 'string', text);
      i = j;
      continue;
    }
    if (ch === '{' || ch === '}' || ch === '[' || ch === ']' || ch === ':' || ch === ',') {
      push('punctuation', ch);
      i++;
      continue;
    }
    SPACE.lastIndex = i;
    const space = SPACE.exec(src);
    if (space) {
      push('text', space[0]);
      i += space[0].length;
      continue;
    }
    NUMBER.lastIndex = i;
    const num = NUMBER.exec(src);
    if (num) {
      push('number', num[0]);
      i += num[0].length;
      continue;
    }
    if (src.startsWith('true', i) || src.startsWith('false', i)) {
      const w = src[i] === 't' ? 'true' : 'false';
      push('boolean', w);
      i += w.length;
      continue;
    }
    if (src.startsWith('null', i)) {
      push('null', 'null');
      i += 4;
      continue;
    }
    push('text', ch);
    i++;
  }
  return out;
}
