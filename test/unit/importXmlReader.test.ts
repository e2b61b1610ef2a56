// The XML reader on its own (src/import/xmlReader.ts): the exact blocks it hands back for a
// document, where its limits fall, and how it reads names, text and wrappers.
import { strict as assert } from 'node:assert';
import { ImportFault, ReportXmlReader, type XmlBlock } from '../../src/import/xmlReader';

function blocks(pieces: string | string[], limits = { maxDepth: 64, maxTextLength: 1024 }): XmlBlock[] {
  const r = new ReportXmlReader(limits);
  for (const p of typeof pieces === 'string' ? [pieces] : pieces) r.write(p);
  r.end();
  return JSON.parse(JSON.stringify(r.blocks)) as XmlBlock[];
}

describe('import: the XML reader’s blocks', () => {
  it('a block is an object of its children, text trimmed, repeats as arrays, wrappers and attributes dropped', () => {
    const doc = '<?xml version="1.0"?><feedback><report_metadata a="1"><org_name>  Org  </org_name><email>\n\tx@y\n</email><extra_contact_info/>' +
      '</report_metadata><policy_published><domain>d</domain></policy_published>' +
      '<record><row><source_ip>1.2.3.4</source_ip></row><auth_results><dkim><domain>a</domain></dkim><dkim><domain>b</domain></dkim><dkim><domain>c</domain></dkim></auth_results></record></feedback>';
    assert.deepEqual(blocks(doc), [
      { name: 'report_metadata', value: { org_name: 'Org', email: 'x@y', extra_contact_info: '' } },
      { name: 'policy_published', value: { domain: 'd' } },
      { name: 'record', value: { row: { source_ip: '1.2.3.4' }, auth_results: { dkim: [{ domain: 'a' }, { domain: 'b' }, { domain: 'c' }] } } },
    ]);
  });

  it('an empty block is an empty object', () => {
    assert.deepEqual(blocks('<feedback><record/><record>  </record></feedback>'), [
      { name: 'record', value: {} },
      { name: 'record', value: {} },
    ]);
  });

  it('text arriving in several pieces (writes, CDATA, entities) is joined', () => {
    assert.deepEqual(blocks(['<feedback><record><a>ab', 'cd', 'ef</a><b>x<![CDATA[<y>]]>z &amp; w</b></record></feedback>']), [
      { name: 'record', value: { a: 'abcdef', b: 'x<y>z & w' } },
    ]);
  });

  it('text after a first child element is ignored, and not counted against the text limit', () => {
    const gap = ' '.repeat(30);
    assert.deepEqual(blocks(`<feedback><record>\n  <a>x</a>${gap}tail${gap}<b>y</b>${gap}</record></feedback>`, { maxDepth: 8, maxTextLength: 10 }), [
      { name: 'record', value: { a: 'x', b: 'y' } },
    ]);
  });

  it('elements are matched by local name: a prefix, bound or not, even an empty one, is cut off', () => {
    assert.deepEqual(blocks('<d:feedback><d:record><d:row><d:count>2</d:count></d:row></d:record></d:feedback>'), [
      { name: 'record', value: { row: { count: '2' } } },
    ]);
    assert.deepEqual(blocks('<feedback><:record><:a>1</:a></:record></feedback>'), [{ name: 'record', value: { a: '1' } }]);
  });

  it('CDATA after a first child element is ignored too, whatever its length', () => {
    assert.deepEqual(blocks(`<feedback><record><a>x</a><![CDATA[${'y'.repeat(50)}]]><b>z</b></record></feedback>`, { maxDepth: 8, maxTextLength: 10 }), [
      { name: 'record', value: { a: 'x', b: 'z' } },
    ]);
  });

  it('element names a plain object inherits stay own, enumerable, repeatable data (first child or later)', () => {
    const r = new ReportXmlReader({ maxDepth: 8, maxTextLength: 100 });
    r.write('<feedback><record><__proto__>p</__proto__><constructor>c1</constructor><constructor>c2</constructor><toString>t</toString></record></feedback>');
    r.end();
    const v = r.blocks[0]!.value!;
    assert.deepEqual(Object.keys(v), ['__proto__', 'constructor', 'toString']);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(v, '__proto__')?.value, 'p');
    assert.deepEqual(v.constructor, ['c1', 'c2']);
    assert.equal(v.toString, 't');
    assert.equal(JSON.stringify(v), '{"__proto__":"p","constructor":["c1","c2"],"toString":"t"}');
  });

  it('an XML error names its line and column', () => {
    const r = new ReportXmlReader({ maxDepth: 8, maxTextLength: 100 });
    assert.throws(() => {
      r.write('<feedback>\n<record></recorx>');
      r.end();
    }, /^Error: 2:\d+: /);
  });
});

describe('import: the XML reader’s limits', () => {
  it('a block may nest exactly maxDepth elements deep; one more refuses that block only', () => {
    const limits = { maxDepth: 3, maxTextLength: 100 };
    assert.deepEqual(blocks('<feedback><record><a><b>x</b></a></record></feedback>', limits), [{ name: 'record', value: { a: { b: 'x' } } }]);
    assert.deepEqual(blocks('<feedback><record><a><b><c>x</c></b></a></record><record><a>y</a></record></feedback>', limits), [
      { name: 'record', error: 'elements nested more than 3 deep' },
      { name: 'record', value: { a: 'y' } },
    ]);
  });

  it('a text node may be exactly maxTextLength long; one more refuses that block only', () => {
    const limits = { maxDepth: 8, maxTextLength: 5 };
    assert.deepEqual(blocks(['<feedback><record><a>ab', 'cde</a></record></feedback>'], limits), [{ name: 'record', value: { a: 'abcde' } }]);
    assert.deepEqual(blocks(['<feedback><record><a>ab', 'cdef</a></record><record><a>z</a></record></feedback>'], limits), [
      { name: 'record', error: 'a text node longer than 5 characters' },
      { name: 'record', value: { a: 'z' } },
    ]);
  });

  it('after a refused last block the document closes with no stray block', () => {
    assert.deepEqual(blocks('<x><feedback><w><record><a><b><c/></b></a></record></w></feedback></x>', { maxDepth: 2, maxTextLength: 10 }), [
      { name: 'record', error: 'elements nested more than 2 deep' },
    ]);
  });

  it('wrappers may nest 256 deep around the report, not 257; closed wrappers do not count', () => {
    const wrapped = (n: number) => `${'<w>'.repeat(n - 1)}<feedback><record><a>1</a></record></feedback>${'</w>'.repeat(n - 1)}`;
    assert.deepEqual(blocks(wrapped(256)), [{ name: 'record', value: { a: '1' } }]);
    assert.throws(() => blocks(wrapped(257)), (e: unknown) => e instanceof ImportFault && e.message === 'elements nested more than 256 deep around the report');
    const siblings = `<feedback>${'<w><v/></w>'.repeat(300)}<record><a>1</a></record></feedback>`;
    assert.deepEqual(blocks(siblings), [{ name: 'record', value: { a: '1' } }]);
  });

  it('a DOCTYPE declaring entities or an external DTD is refused', () => {
    for (const doctype of ['<!DOCTYPE f [<!ENTITY x "y">]>', '<!DOCTYPE f SYSTEM "f.dtd">', '<!DOCTYPE f PUBLIC "-//x//y" "f.dtd">']) {
      assert.throws(() => blocks(`${doctype}<feedback/>`), (e: unknown) => e instanceof ImportFault && /declares entities or an external DTD/.test(e.message), doctype);
    }
    assert.deepEqual(blocks('<!DOCTYPE feedback><feedback><record/></feedback>'), [{ name: 'record', value: {} }]);
  });
});
