/**
 * IP networks for grouping: an IPv4 address's /24, an IPv6 address's /64 (RFC 5952 text).
 * Hand-written parsers over char codes (no regular expressions or splits): this runs once per
 * distinct address, which can be hundreds of thousands.
 */

const COLON = 58;
const DOT = 46;

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  return -1;
}

/** The dotted-quad IPv4 address s[from…] (to its end) as a 32-bit number, or -1: decimal octets 0–255 without leading zeros. */
function parseV4(s: string, from: number): number {
  let value = 0;
  let i = from;
  for (let octet = 0; octet < 4; octet++) {
    if (octet > 0) {
      if (s.charCodeAt(i) !== DOT) return -1;
      i++;
    }
    const first = i;
    let v = 0;
    while (i < s.length && i - first < 4) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      v = v * 10 + (c - 48);
      i++;
    }
    const len = i - first;
    if (len === 0 || len > 3 || v > 255 || (len > 1 && s.charCodeAt(first) === 48)) return -1;
    value = value * 256 + v;
  }
  return i === s.length ? value : -1;
}

/** The 8 hextets of an IPv6 address, or undefined when it is not one (a zone index `%eth0` counts as not one). */
function parseV6(s: string): number[] | undefined {
  const n = s.length;
  if (n < 2 || n > 45) return undefined;
  const head: number[] = [];
  const tail: number[] = [];
  let cur = head;
  let gap = false;
  let i = 0;
  if (s.charCodeAt(0) === COLON) {
    if (s.charCodeAt(1) !== COLON) return undefined;
    gap = true;
    cur = tail;
    i = 2;
  }
  while (i < n) {
    let j = i;
    let v = 0;
    while (j < n && j - i < 5) {
      const h = hexDigit(s.charCodeAt(j));
      if (h < 0) break;
      v = v * 16 + h;
      j++;
    }
    if (j < n && s.charCodeAt(j) === DOT) {
      // An embedded IPv4 address: the last 32 bits, up to the end.
      const v4 = parseV4(s, i);
      if (v4 < 0) return undefined;
      cur.push(Math.floor(v4 / 65536), v4 % 65536);
      break;
    }
    if (j === i || j - i > 4) return undefined;
    cur.push(v);
    if (j === n) break;
    if (s.charCodeAt(j) !== COLON) return undefined;
    if (s.charCodeAt(j + 1) === COLON) {
      if (gap) return undefined;
      gap = true;
      cur = tail;
      i = j + 2;
    } else {
      i = j + 1;
      if (i === n) return undefined; // a trailing single colon
    }
  }
  const known = head.length + tail.length;
  if (gap ? known > 7 : known !== 8) return undefined;
  const out = head;
  for (let k = known; k < 8; k++) out.push(0);
  for (let k = 0; k < tail.length; k++) out[8 - tail.length + k] = tail[k]!;
  return out;
}

/** RFC 5952 text of 8 hextets: lower case, no leading zeros, the first longest run (≥ 2) of zeros as `::`. */
function ipv6Text(h: readonly number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (h[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && h[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === best) {
      out += '::';
      i += bestLen - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += h[i]!.toString(16);
  }
  return out;
}

/** `192.0.2.0/24` for an IPv4 address, `2001:db8:1:2::/64` for an IPv6 one (any valid spelling); anything else unchanged. */
export function networkKey(ip: string): string {
  if (parseV4(ip, 0) >= 0) return `${ip.slice(0, ip.lastIndexOf('.'))}.0/24`;
  const h = parseV6(ip);
  if (!h) return ip;
  return `${ipv6Text([h[0]!, h[1]!, h[2]!, h[3]!, 0, 0, 0, 0])}/64`;
}
