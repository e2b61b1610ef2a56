/** IP networks for grouping: an IPv4 address's /24, an IPv6 address's /64 (RFC 5952 text). */

const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** The 8 hextets of an IPv6 address, or undefined when it is not one (a zone index counts as not one). */
function hextets(ip: string): number[] | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(ip) || ip.length > 45) return undefined;
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    const m = V4.exec(text.slice(lastColon + 1));
    if (!m) return undefined;
    tail.push((+m[1]! << 8) | +m[2]!, (+m[3]! << 8) | +m[4]!);
    // `::ffff:192.0.2.1` → `::ffff`, `::192.0.2.1` → `::`.
    text = text.slice(0, lastColon);
    if (text.endsWith(':')) text += ':';
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]!);
  if (!head) return undefined;
  if (halves.length === 1) {
    const all = [...head, ...tail];
    return all.length === 8 ? all : undefined;
  }
  const rest = parse(halves[1]!);
  if (!rest) return undefined;
  const known = head.length + rest.length + tail.length;
  if (known > 7) return undefined;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}

/** RFC 5952 text of 8 hextets: lower case, no leading zeros, the longest run (≥ 2) of zeros as `::`. */
function ipv6Text(h: number[]): string {
  let best = -1;
  let bestLen = 0;
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
  const hex = h.map((x) => x.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** `192.0.2.0/24` for an IPv4 address, `2001:db8:1:2::/64` for an IPv6 one; anything else unchanged. */
export function networkKey(ip: string): string {
  const m = V4.exec(ip);
  if (m) return `${m[1]}.${m[2]}.${m[3]}.0/24`;
  if (!ip.includes(':')) return ip;
  const h = hextets(ip);
  if (!h) return ip;
  return `${ipv6Text([h[0]!, h[1]!, h[2]!, h[3]!, 0, 0, 0, 0])}/64`;
}
