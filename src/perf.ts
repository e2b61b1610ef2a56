import { monitorEventLoopDelay } from 'node:perf_hooks';
import { appendFileSync } from 'node:fs';

/**
 * Performance trace for `npm run bench:panel`, off unless DMARC_PERF_FILE names a file: JSON lines
 * with the time each API response finished arriving and, every 250 ms, the longest the extension
 * host's event loop was blocked in that interval. Nothing else is recorded (no data, no key).
 */
export interface PerfTrace {
  mark(event: string, detail?: Record<string, number | string>): void;
  dispose(): void;
}

export function startPerfTrace(file: string | undefined): PerfTrace | undefined {
  if (!file) return undefined;
  const write = (o: object) => {
    try {
      appendFileSync(file, `${JSON.stringify(o)}\n`);
    } catch {
      /* the trace is best effort */
    }
  };
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const timer = setInterval(() => {
    write({ event: 'loop', at: Date.now(), maxMs: Math.round(h.max / 1e6) });
    h.reset();
  }, 250);
  timer.unref();
  return {
    mark: (event, detail) => write({ event, at: Date.now(), ...detail }),
    dispose: () => {
      clearInterval(timer);
      h.disable();
    },
  };
}
