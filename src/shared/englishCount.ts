/**
 * "1 row", "12 rows" in an English log line (log lines are not translated: src/ui/counted.ts has
 * the translated counts). Here, without `vscode`, so the core (src/import) words its log lines
 * the same way as the host.
 */
export function englishCount(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
