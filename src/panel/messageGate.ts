/**
 * The host's first look at a message from a records panel's webview, which is a browser page and
 * may be compromised: before the schema, refuse what would cost more to validate than any real
 * message can (a 50 MB `type`, an export of more rows than the panel has: validating 10M indices
 * blocks the extension host for seconds); after it, log each kind of invalid message once, so a
 * flood of them cannot flood the log.
 */
import type { z } from 'zod';

/** Longer than any message type; a longer one is refused without being looked up. */
const MAX_TYPE_CHARS = 40;
/** Kinds of invalid message logged per panel; past it, one line says the rest are not. */
const MAX_KINDS = 100;

export class MessageGate {
  private readonly kinds = new Set<string>();

  constructor(private readonly warn: (line: string) => void) {}

  /** Why `raw` is refused before the schema sees it, or undefined to let the schema decide. */
  precheck(raw: unknown, rowCount: number): string | undefined {
    if (!raw || typeof raw !== 'object') return undefined;
    const { type, indices } = raw as { type?: unknown; indices?: unknown };
    if (typeof type === 'string' && type.length > MAX_TYPE_CHARS) return 'type: too long';
    if (type === 'export' && Array.isArray(indices) && indices.length > rowCount) return `indices: ${indices.length} rows asked for, the panel has ${rowCount}`;
    return undefined;
  }

  /** Logs an ignored message, once per kind (its type and what was wrong with it). */
  ignored(raw: unknown, problem: string | z.core.$ZodIssue[]): void {
    const type = raw && typeof raw === 'object' && typeof (raw as { type?: unknown }).type === 'string' ? (raw as { type: string }).type.slice(0, MAX_TYPE_CHARS) : typeof raw;
    const issues = typeof problem === 'string' ? [] : problem.slice(0, 3);
    const what = typeof problem === 'string' ? problem : issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    const kind = `${type}\u0000${typeof problem === 'string' ? problem.split(':')[0] : issues.map((i) => `${i.path.join('.')}:${i.code}`).join(',')}`;
    if (this.kinds.has(kind)) return;
    if (this.kinds.size >= MAX_KINDS) {
      if (this.kinds.size === MAX_KINDS) this.warn(`ignoring more invalid messages from the records panel; ${MAX_KINDS} kinds were logged, the rest are not`);
      this.kinds.add('\u0000full');
      return;
    }
    this.kinds.add(kind);
    this.warn(`ignored an invalid message from the records panel (type ${JSON.stringify(type)}): ${what} (further messages of this kind are not logged)`);
  }
}
