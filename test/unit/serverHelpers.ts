// What the local API server's tests share: raw HTTP (global fetch), no client.

export const NOW = new Date('2025-06-15T12:00:00Z');
export const KEY = 'demo-key-5f2c8e7a91d4b036';

/** The records endpoint (or `path`) of the server at `base`, with these query parameters. */
export function apiUrl(base: string, params: Record<string, string | undefined>, path = '/api/public/dmarc-records'): string {
  const u = new URL(base + path);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

export const range = (org: string, start: string, end: string) => ({ organizationId: org, startDate: start, endDate: end });

/** A GET with the key (null: none); the body parsed when it is JSON. */
export async function get(href: string, key: string | null = KEY): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(href, { headers: key === null ? {} : { authorization: `Bearer ${key}` } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, headers: res.headers };
}
