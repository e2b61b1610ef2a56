// The detail pane's JSON tokens (media/webview/jsonTokens.ts), exactly: every token's kind and
// text, runs of punctuation and of plain text merged, a string before a colon (after any white
// space) a key.
import { strict as assert } from 'node:assert';
import { tokenizeJson } from '../../media/webview/jsonTokens';

const tokens = (src: string) => tokenizeJson(src).map((t) => [t.kind, t.text]);

describe('webview JSON tokens, exactly', () => {
  it('a pretty-printed object, token by token', () => {
    assert.deepEqual(tokens('{\n  "a": [1, -2.5e+3],\n  "b": {"c": null, "d": true, "e": false}\n}'), [
      ['punctuation', '{'], ['text', '\n  '], ['key', '"a"'], ['punctuation', ':'], ['text', ' '], ['punctuation', '['], ['number', '1'], ['punctuation', ','], ['text', ' '],
      ['number', '-2.5e+3'], ['punctuation', '],'], ['text', '\n  '], ['key', '"b"'], ['punctuation', ':'], ['text', ' '], ['punctuation', '{'], ['key', '"c"'], ['punctuation', ':'], ['text', ' '],
      ['null', 'null'], ['punctuation', ','], ['text', ' '], ['key', '"d"'], ['punctuation', ':'], ['text', ' '], ['boolean', 'true'], ['punctuation', ','], ['text', ' '], ['key', '"e"'],
      ['punctuation', ':'], ['text', ' '], ['boolean', 'false'], ['punctuation', '}'], ['text', '\n'], ['punctuation', '}'],
    ]);
  });

  it('each punctuation character, runs of them merged; runs of text merged; other kinds never merged', () => {
    assert.deepEqual(tokens('{}[]:,'), [['punctuation', '{}[]:,']]);
    for (const p of ['{', '}', '[', ']', ':', ',']) assert.deepEqual(tokens(`${p}x`), [['punctuation', p], ['text', 'x']], p);
    assert.deepEqual(tokens('xy<z'), [['text', 'xy<z']]);
    assert.deepEqual(tokens('1 2'), [['number', '1'], ['text', ' '], ['number', '2']]);
    assert.deepEqual(tokens('"a""b"'), [['string', '"a"'], ['string', '"b"']]);
    assert.deepEqual(tokens('truefalse'), [['boolean', 'true'], ['boolean', 'false']]);
    assert.deepEqual(tokens('nullnull'), [['null', 'null'], ['null', 'null']]);
  });

  it('a string is a key when a colon follows it after any spaces, tabs or line breaks', () => {
    for (const gap of ['', ' ', '\t', '\r', '\n', ' \t\r\n ']) {
      assert.deepEqual(tokens(`"k"${gap}:1`)[0], ['key', '"k"'], JSON.stringify(gap));
    }
    assert.deepEqual(tokens('"k" x :1')[0], ['string', '"k"']);
    assert.deepEqual(tokens('"k"'), [['string', '"k"']]);
    assert.deepEqual(tokens('"k"  '), [['string', '"k"'], ['text', '  ']]);
  });

  it('escapes stay inside a string; an unterminated string runs to the end', () => {
    assert.deepEqual(tokens('"a\\"b\\\\" 1'), [['string', '"a\\"b\\\\"'], ['text', ' '], ['number', '1']]);
    assert.deepEqual(tokens('"abc'), [['string', '"abc']]);
    assert.deepEqual(tokens('"ab\\'), [['string', '"ab\\']]);
  });

  it('numbers by JSON’s grammar; what is not JSON is text, one character at a time, merged', () => {
    assert.deepEqual(tokens('0 -0 10 1.5 2E-7 3e4'), [
      ['number', '0'], ['text', ' '], ['number', '-0'], ['text', ' '], ['number', '10'], ['text', ' '], ['number', '1.5'], ['text', ' '], ['number', '2E-7'], ['text', ' '], ['number', '3e4'],
    ]);
    assert.deepEqual(tokens('01'), [['number', '0'], ['number', '1']]);
    assert.deepEqual(tokens('-x'), [['text', '-x']]);
    assert.deepEqual(tokens('tru nul'), [['text', 'tru nul']]);
    assert.deepEqual(tokens(''), []);
  });
});
