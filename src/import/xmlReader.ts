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
 * - Spaces, tabs, line breaks and byte order marks before the first `<` are dropped: XML wants
 *   its declaration first, but receivers write a line break or a BOM before it, and nothing
 *   before the root carries any of the report.
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

/** Depth outside any block (wrappers) before the report is refused as a whole. */
const MAX_OUTER_DEPTH = 256;

const hasOwn = Object.prototype.hasOwnProperty;

/** The first character that is neither XML white space nor a byte order mark (U+FEFF). */
const NOT_LEADING_BLANK = /[^ \t\r\n\ufeff]/;

function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

/** Names an element may share with what a plain object inherits (`constructor`, `__proto__`, …). */
const INHERITED: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** An element's local name, looked up once per distinct tag name. */
interface Name {
  local: string;
  /** One of the names a plain object inherits. */
  inherited: boolean;
}

/** Sets obj[key] = value, turning a repeated key into an array; never touches a prototype. */
function addChild(obj: XmlObject, name: Name, value: XmlValue): void {
  const key = name.local;
  if (name.inherited) {
    if (!hasOwn.call(obj, key)) {
      Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
      return;
    }
  } else if (obj[key] === undefined) {
    // The common case, kept to one lookup and a plain store (which keeps the object fast).
    obj[key] = value;
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
  // The open elements of the current block, as parallel arrays reused from block to block
  // (no object per element: a 20 MB report has over half a million of them).
  private readonly names: Name[] = [];
  /**
   * Tag name → its local name. saxes hands a new string per tag; using one string per distinct
   * name as the property key spares V8 a string-table lookup per element (a report has a few
   * dozen distinct names and hundreds of thousands of elements). Bounded, for endless names.
   */
  private readonly nameCache = new Map<string, Name>();
  private readonly objs: (XmlObject | undefined)[] = [];
  private readonly texts: string[] = [];
  private depth = 0;
  private capturing = false;
  /** Depth inside the current block once it was refused; 0 when it is fine. */
  private refusedDepth = 0;
  private refusal: string | undefined;
  private outerDepth = 0;
  /** Nothing but blanks (and byte order marks) written so far. */
  private leading = true;

  constructor(private readonly limits: XmlReaderLimits) {
    this.parser = new SaxesParser({ xmlns: false, position: true });
    const p = this.parser;
    p.on('doctype', (text) => {
      if (/<!ENTITY|\bSYSTEM\b|\bPUBLIC\b/i.test(text)) {
        throw new ImportFault('the XML declares entities or an external DTD; reports never need them, so it is refused');
      }
    });
    const onText = (t: string) => this.text(t);
    p.on('cdata', onText);
    p.on('text', onText);
    // Text matters only from an element's start to its first child or its end; the rest is the
    // whitespace between elements, which saxes builds (a string per line) only while a text
    // handler is set (~12% of a profile of a pretty-printed 20 MB report). So the handler is set
    // on open and cleared on close. saxes keeps it in `textHandler`, which `on`/`off` set (they
    // cost more than the saving); if a later saxes keeps it elsewhere, the handler stays on.
    const internals = p as unknown as { textHandler?: unknown };
    const toggle = internals.textHandler === onText;
    p.on('opentag', (tag) => {
      this.open(tag);
      if (toggle) internals.textHandler = onText;
    });
    p.on('closetag', (tag) => {
      this.close(tag);
      if (toggle) internals.textHandler = undefined;
    });
  }

  /** Feeds more of the document; throws (saxes' or our own error) when it cannot be read on. */
  write(chunk: string): void {
    if (this.leading) {
      const start = chunk.search(NOT_LEADING_BLANK);
      if (start < 0) return;
      this.leading = false;
      if (start > 0) chunk = chunk.slice(start);
    }
    this.parser.write(chunk);
  }

  end(): void {
    this.parser.close();
  }

  private nameOf(tag: string): Name {
    let n = this.nameCache.get(tag);
    if (n === undefined) {
      const local = localName(tag);
      n = { local, inherited: INHERITED.has(local) };
      if (this.nameCache.size < 4096) this.nameCache.set(tag, n);
    }
    return n;
  }

  private push(name: Name): void {
    const d = this.depth++;
    this.names[d] = name;
    this.objs[d] = undefined;
    this.texts[d] = '';
  }

  private open(tag: SaxesTagPlain): void {
    const name = this.nameOf(tag.name);
    if (!this.capturing) {
      if (BLOCK_NAMES.has(name.local)) {
        this.capturing = true;
        this.refusedDepth = 0;
        this.refusal = undefined;
        this.depth = 0;
        this.push(name);
      } else if (++this.outerDepth > MAX_OUTER_DEPTH) {
        throw new ImportFault(`elements nested more than ${MAX_OUTER_DEPTH} deep around the report`);
      }
      return;
    }
    if (this.refusedDepth > 0) {
      this.refusedDepth++;
      return;
    }
    if (this.depth >= this.limits.maxDepth) {
      this.refuse(`elements nested more than ${this.limits.maxDepth} deep`);
      this.refusedDepth++;
      return;
    }
    this.push(name);
  }

  private refuse(reason: string): void {
    this.refusal = reason;
    this.refusedDepth = this.depth;
    this.depth = 0;
    this.objs.fill(undefined);
  }

  private text(t: string): void {
    if (!this.capturing || this.refusedDepth > 0) return;
    const d = this.depth - 1;
    if (this.objs[d] !== undefined) return; // whitespace (or mixed text) between child elements
    const prev = this.texts[d]!;
    if (prev.length + t.length > this.limits.maxTextLength) {
      this.refuse(`a text node longer than ${this.limits.maxTextLength} characters`);
      return;
    }
    this.texts[d] = prev === '' ? t : prev + t;
  }

  private close(tag: SaxesTagPlain): void {
    if (!this.capturing) {
      if (this.outerDepth > 0) this.outerDepth--;
      return;
    }
    if (this.refusedDepth > 0) {
      if (--this.refusedDepth === 0) {
        this.blocks.push({ name: this.nameOf(tag.name).local, value: undefined, error: this.refusal! });
        this.capturing = false;
      }
      return;
    }
    const d = --this.depth;
    const obj = this.objs[d];
    const value: XmlValue = obj ?? this.texts[d]!.trim();
    this.objs[d] = undefined;
    this.texts[d] = '';
    if (d > 0) {
      const parent = this.objs[d - 1];
      const name = this.names[d]!;
      if (parent !== undefined) addChild(parent, name, value);
      else if (name.inherited) addChild((this.objs[d - 1] = {}), name, value);
      else {
        // A first child: nothing to look up, one store into a fresh object.
        const fresh: XmlObject = {};
        fresh[name.local] = value;
        this.objs[d - 1] = fresh;
      }
      return;
    }
    this.capturing = false;
    this.blocks.push({ name: this.names[0]!.local, value: typeof value === 'string' ? {} : value });
  }
}
