/**
 * Streams one aggregate report's XML through `saxes` and hands back its blocks
 * (`report_metadata`, `policy_published`, each `record`) as plain objects.
 *
 * - Elements are matched by local name whatever their namespace or prefix (`xmlns: false`, the
 *   prefix cut off), so RFC 7489 reports, RFC 9990 reports in
 *   `urn:ietf:params:xml:ns:dmarc-2.0` and reports wrapped in a stray `xs:schema` element all read
 *   the same: a block is captured wherever it sits.
 * - A block becomes an object of its children; an element with only text becomes that text,
 *   trimmed; a repeated child becomes an array. Attributes are not kept (the format has none that
 *   matter).
 * - Safety: saxes is strict and expands no entity it was not born with (the five predefined ones
 *   and character references); a DOCTYPE that declares entities or names an external subset is
 *   refused outright. A block nested deeper than `maxDepth`, or with a text node longer than
 *   `maxTextLength`, is returned with an error instead of a value and the parse goes on.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';

export type XmlValue = string | XmlObject | XmlValue[];
export interface XmlObject {
  [name: string]: XmlValue;
}

export const BLOCK_NAMES: ReadonlySet<string> = new Set(['report_metadata', 'policy_published', 'record']);

export interface XmlBlock {
  name: string;
  /** Undefined when `error` says why the block was refused. */
  value: XmlObject | undefined;
  error?: string;
}

export class ImportFault extends Error {}

interface Frame {
  name: string;
  obj: XmlObject | undefined;
  text: string;
}

/** Depth outside any block (wrappers) before the report is refused as a whole. */
const MAX_OUTER_DEPTH = 256;

const hasOwn = Object.prototype.hasOwnProperty;

function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

/** Sets obj[key] = value, turning a repeated key into an array; never touches a prototype. */
function addChild(obj: XmlObject, key: string, value: XmlValue): void {
  if (!hasOwn.call(obj, key)) {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    return;
  }
  // Arrays only ever come from repeats, so an array here is the list of earlier repeats.
  const prev = obj[key]!;
  if (Array.isArray(prev)) prev.push(value);
  else obj[key] = [prev, value];
}

export interface XmlReaderLimits {
  maxDepth: number;
  maxTextLength: number;
}

export class ReportXmlReader {
  readonly blocks: XmlBlock[] = [];
  private readonly parser: SaxesParser<{ xmlns: false; position: true }>;
  private stack: Frame[] = [];
  private capturing = false;
  /** Depth inside the current block once it was refused; 0 when it is fine. */
  private refusedDepth = 0;
  private refusal: string | undefined;
  private outerDepth = 0;

  constructor(private readonly limits: XmlReaderLimits) {
    this.parser = new SaxesParser({ xmlns: false, position: true });
    const p = this.parser;
    p.on('doctype', (text) => {
      if (/<!ENTITY|\bSYSTEM\b|\bPUBLIC\b/i.test(text)) {
        throw new ImportFault('the XML declares entities or an external DTD; reports never need them, so it is refused');
      }
    });
    p.on('opentag', (tag) => this.open(tag));
    p.on('closetag', (tag) => this.close(tag));
    p.on('text', (t) => this.text(t));
    p.on('cdata', (t) => this.text(t));
  }

  /** Feeds more of the document; throws (saxes' or our own error) when it cannot be read on. */
  write(chunk: string): void {
    this.parser.write(chunk);
  }

  end(): void {
    this.parser.close();
  }

  private open(tag: SaxesTagPlain): void {
    const name = localName(tag.name);
    if (!this.capturing) {
      if (BLOCK_NAMES.has(name)) {
        this.capturing = true;
        this.refusedDepth = 0;
        this.refusal = undefined;
        this.stack = [{ name, obj: undefined, text: '' }];
      } else if (++this.outerDepth > MAX_OUTER_DEPTH) {
        throw new ImportFault(`elements nested more than ${MAX_OUTER_DEPTH} deep around the report`);
      }
      return;
    }
    if (this.refusedDepth > 0) {
      this.refusedDepth++;
      return;
    }
    if (this.stack.length >= this.limits.maxDepth) {
      this.refuse(`elements nested more than ${this.limits.maxDepth} deep`);
      this.refusedDepth++;
      return;
    }
    this.stack.push({ name, obj: undefined, text: '' });
  }

  private refuse(reason: string): void {
    this.refusal = reason;
    this.refusedDepth = this.stack.length;
    this.stack = [];
  }

  private text(t: string): void {
    if (!this.capturing || this.refusedDepth > 0) return;
    const top = this.stack[this.stack.length - 1]!;
    if (top.obj !== undefined) return; // whitespace (or mixed text) between child elements
    if (top.text.length + t.length > this.limits.maxTextLength) {
      this.refuse(`a text node longer than ${this.limits.maxTextLength} characters`);
      return;
    }
    top.text += t;
  }

  private close(tag: SaxesTagPlain): void {
    if (!this.capturing) {
      if (this.outerDepth > 0) this.outerDepth--;
      return;
    }
    if (this.refusedDepth > 0) {
      if (--this.refusedDepth === 0) {
        this.blocks.push({ name: localName(tag.name), value: undefined, error: this.refusal! });
        this.capturing = false;
      }
      return;
    }
    const frame = this.stack.pop()!;
    const value: XmlValue = frame.obj ?? frame.text.trim();
    const parent = this.stack[this.stack.length - 1];
    if (parent) {
      if (parent.obj === undefined) parent.obj = {};
      addChild(parent.obj, frame.name, value);
      return;
    }
    this.capturing = false;
    this.blocks.push({ name: frame.name, value: typeof value === 'string' ? {} : (value as XmlObject) });
  }
}
