/**
 * The attachments of an email message (`.eml`), decoded from whatever transfer encoding they
 * travel in (base64, quoted-printable, 7bit/8bit), by `postal-mime`. A report sent as the whole
 * body of a message (Content-Type application/gzip, say) comes back as an attachment too.
 */
import PostalMime from 'postal-mime';

export interface MessagePart {
  name: string;
  content: Uint8Array;
}

export async function emlAttachments(bytes: Uint8Array): Promise<MessagePart[]> {
  const email = await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer' });
  return email.attachments.map((a, i) => ({
    name: a.filename || `attachment ${i + 1}`,
    content: typeof a.content === 'string' ? new TextEncoder().encode(a.content) : new Uint8Array(a.content),
  }));
}
