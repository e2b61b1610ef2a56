/**
 * The hostile suite's figures (issue 14): how much was tried and what was lost. Every hostile
 * test adds to them as it goes; each layer's reporter saves them beside its results
 * (test/host/reporter.cjs) and test/run.mjs totals them into one line:
 *
 *   hostile: B bodies, F faults, M messages, S states, X files; 0 crashes, 0 lost rows, 0 leaks, 0 executions
 *
 * Each test file is bundled on its own (esbuild.mjs), so a module-level counter would be one per
 * file: the counts live on globalThis, shared by every bundle loaded into the layer's process.
 */

export interface HostileFigures {
  bodies: number;
  faults: number;
  messages: number;
  states: number;
  files: number;
  crashes: number;
  lostRows: number;
  leaks: number;
  executions: number;
  /** What each crash, lost row, leak or execution was: the first few, for the failure message. */
  notes: string[];
}

const KEY = '__dmarcHostileFigures';

export function figures(): HostileFigures {
  const g = globalThis as unknown as Record<string, HostileFigures | undefined>;
  return (g[KEY] ??= { bodies: 0, faults: 0, messages: 0, states: 0, files: 0, crashes: 0, lostRows: 0, leaks: 0, executions: 0, notes: [] });
}

type Tried = 'bodies' | 'faults' | 'messages' | 'states' | 'files';
type Lost = 'crashes' | 'lostRows' | 'leaks' | 'executions';

/** One more case of this kind was tried. */
export function tried(kind: Tried, n = 1): void {
  figures()[kind] += n;
}

/** Something went wrong that the right-hand side of the line counts; the test also fails on it. */
export function lost(kind: Lost, what: string, n = 1): void {
  const f = figures();
  f[kind] += n;
  if (f.notes.length < 20) f.notes.push(`${kind}: ${what.slice(0, 300)}`);
}

/** The forms of a secret a careless message could carry it in. */
export function secretForms(secret: string): string[] {
  return [...new Set([secret, Buffer.from(secret).toString('base64'), encodeURIComponent(secret), Buffer.from(`Bearer ${secret}`).toString('base64')])];
}

/**
 * Counts (and returns) the forms of `secret` found in `texts`: every message, log line or file a
 * test produced. A hit is a leak.
 */
export function leaksIn(secret: string, texts: Iterable<string>, where: string): number {
  const forms = secretForms(secret);
  let hits = 0;
  for (const t of texts) {
    for (const f of forms) {
      if (t.includes(f)) {
        hits++;
        lost('leaks', `${where}: ${t.slice(0, 120)}`);
      }
    }
  }
  return hits;
}
