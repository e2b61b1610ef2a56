/**
 * The local API server's faults: what can go wrong (`Faults`), when a failure fires, and the
 * `faults=` spec that sets them from a query parameter, a path prefix or the command line.
 */
import { WIRE_FAULT_NAMES, parseWireFault, type WireFaults } from './wireVariants';

/** When a failure fault fires: always (`true`), for the first N requests, and/or every Nth. */
export type Schedule = boolean | { first?: number; every?: number };

/** Failure modes, plus the legal wire variants of wireVariants.ts. */
export interface Faults extends WireFaults {
  /** Answer with a bare array instead of the envelope. */
  bareArray?: boolean;
  /** Share of rows (0..1, true = all) sent with `from` but without `visibleFrom`. */
  fromOnly?: number | boolean;
  /** Share of rows whose `rdns` is sent as a plain string ('' when there is none). */
  rdnsString?: number | boolean;
  /** Share of rows carrying a value outside an enum (category, dmarc or a result). */
  unknownEnums?: number | boolean;
  /** Share of rows replaced by malformed ones (missing field, wrong type, not an object). */
  badRows?: number | boolean;
  /** Injects hostile payloads into every string field but `date` (true = the built-in list). */
  hostileStrings?: boolean | string[];
  /** Delay before the status line. */
  latencyMs?: number;
  /** Pause after the first chunk of a 200 body. */
  bodyStallMs?: number;
  /** 500 with a JSON body. */
  error500?: Schedule;
  /** 400 with `{"message": BAD_REQUEST_MESSAGE}` (a server-side rule the client cannot know). */
  error400?: Schedule;
  /** 429 with `Retry-After: retryAfter` (default "1"). */
  rateLimit?: Schedule;
  /** Retry-After value for rateLimit: seconds or an HTTP date. */
  retryAfter?: string;
  /** 200 with an HTML error page. */
  htmlError?: Schedule;
  /** 200 whose JSON body stops halfway (cleanly ended response). */
  truncate?: Schedule;
  /** Connection reset before any response. */
  reset?: Schedule;
  /** Connection reset after the first chunk of a 200 body. */
  resetMidBody?: Schedule;
  /** Error bodies and the HTML page quote the Authorization header (to test the client's redaction). */
  echoKey?: boolean;
}

export const BAD_REQUEST_MESSAGE = 'The date range may span at most 400 days (test server fault)';

export const HOSTILE_STRINGS = [
  '<img src=x onerror=alert(1)>',
  '</script><script>alert(1)</script>',
  '"><svg onload=alert(1)>',
  "'; alert(1); //",
  'javascript:alert(1)',
  '{{constructor.constructor("alert(1)")()}}',
  '${alert(1)}',
  '\u202egnp.exe',
  '<b>bold</b>&amp;&lt;',
];

/**
 * "bareArray,latencyMs=300,error500=first:2,rateLimit=every:3,retryAfter=5,rdnsString=0.5"
 * → Faults. Names are the Faults keys; a bare name means true (or share 1).
 */
export function parseFaults(spec: string): Faults {
  const f: Record<string, unknown> = {};
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? undefined : part.slice(eq + 1);
    if (!FAULT_NAMES.has(name)) throw new Error(`unknown fault "${name}" (known: ${[...FAULT_NAMES].join(', ')})`);
    const wire = value === undefined ? undefined : parseWireFault(name, value);
    if (value === undefined) f[name] = true;
    else if (wire !== undefined) f[name] = wire;
    else if (name === 'retryAfter') f[name] = value;
    else if (/^(first|every):\d+$/.test(value)) {
      const [k, n] = value.split(':');
      f[name] = { [k!]: Number(n) };
    } else if (value === 'true' || value === 'false') f[name] = value === 'true';
    else if (Number.isFinite(Number(value))) f[name] = Number(value);
    else throw new Error(`fault "${name}": cannot read value "${value}"`);
  }
  return f as Faults;
}

const FAULT_NAMES = new Set([
  'bareArray', 'fromOnly', 'rdnsString', 'unknownEnums', 'badRows', 'hostileStrings', 'latencyMs', 'bodyStallMs',
  'error500', 'error400', 'rateLimit', 'retryAfter', 'htmlError', 'truncate', 'reset', 'resetMidBody', 'echoKey',
  ...WIRE_FAULT_NAMES,
]);

export function fires(s: Schedule | undefined, n: number): boolean {
  if (s === undefined || s === false) return false;
  if (s === true) return true;
  return (s.first !== undefined && n <= s.first) || (s.every !== undefined && s.every > 0 && n % s.every === 0);
}

export function share(v: number | boolean | undefined): number {
  return v === true ? 1 : typeof v === 'number' ? v : 0;
}
