/**
 * The attachments of an email message (`.eml`), decoded from whatever transfer encoding they
 * travel in (base64, quoted-printable, 7bit/8bit), by `postal-mime`. A report sent as the whole
 * body of a message (Content-Type application/gzip, say) comes back as an attachment too.
 */
import PostalMime from 'postal-mime';

export interface MessagePart {
  name: string;
  /** The part's MIME type, lower-cased. */
  type: string;
  content: Uint8Array;
}

export async function emlAttachments(bytes: Uint8Array): Promise<MessagePart[]> {
  const email = await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer' });
  return email.attachments.map((a, i) => ({
    name: a.filename || `attachment ${i + 1}`,
    type: (a.mimeType || '').toLowerCase(),
    content: typeof a.content === 'string' ? new TextEncoder().encode(a.content) : new Uint8Array(a.content),
  }));
}

export type ReportKind = 'xml' | 'gzip' | 'zip';

const KIND_WORDS: Record<ReportKind, string> = { zip: 'a zip archive', gzip: 'a gzip file', xml: 'XML' };

/** What a part says it is: by its file name's extension, else by its MIME type; undefined when it claims no report's kind. */
export function claimedKind(part: Pick<MessagePart, 'name' | 'type'>): ReportKind | undefined {
  const ext = /\.(zip|gz|gzip|xml)$/i.exec(part.name)?.[1]!.toLowerCase();
  if (ext !== undefined) return ext === 'zip' || ext === 'xml' ? ext : 'gzip';
  if (/^application\/(x-)?zip(-compressed)?$/.test(part.type)) return 'zip';
  if (/^application\/(x-)?gzip$/.test(part.type)) return 'gzip';
  if (/^(text|application)\/xml$/.test(part.type)) return 'xml';
  return undefined;
}

/** Shown of a part's first bytes: as text when they are printable ASCII, else in hex. */
const SHOWN_TEXT = 40;
const SHOWN_BYTES = 8;

/**
 * Why a part that claims to be a report's kind is none (`report.zip is not a zip archive (…)`),
 * saying what its bytes are instead; undefined when it claims no report's kind.
 */
export function notWhatItClaims(part: MessagePart): string | undefined {
  const kind = claimedKind(part);
  if (kind === undefined) return undefined;
  const b = part.content;
  let what: string;
  if (b.length === 0) what = 'it is empty';
  else {
    const head = b.subarray(0, SHOWN_TEXT);
    if (head.every((x) => x === 0x09 || x === 0x0a || x === 0x0d || (x >= 0x20 && x < 0x7f))) {
      const text = String.fromCharCode(...head).replace(/\s+/g, ' ').trim();
      what = `${b.length} bytes of text: "${text}${b.length > head.length ? '…' : ''}"`;
    } else {
      const hex = [...b.subarray(0, SHOWN_BYTES)].map((x) => x.toString(16).padStart(2, '0')).join(' ');
      what = `${b.length} bytes starting ${hex}${b.length > SHOWN_BYTES ? ' …' : ''}`;
    }
  }
  return `${part.name} is not ${KIND_WORDS[kind]} (${what})`;
}
