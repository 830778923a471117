import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { isCompressed, renderTrace, unpack } from '../src/render';
import { fixture } from './helpers';

const packed = (text: string) => gzipSync(Buffer.from(text, 'utf-8')).toString('base64');

describe('the document as the bundle carries it', () => {
  it('reads JSON text, an object, or base64 of gzip', async () => {
    const doc = fixture('train.json');
    const text = JSON.stringify(doc);
    expect(isCompressed(text)).toBe(false);
    expect(isCompressed(doc)).toBe(false);
    expect(isCompressed(packed(text))).toBe(true);
    expect(await unpack(packed(text))).toEqual(doc);
    for (const data of [doc, text, packed(text)]) {
      const r = renderTrace(data, null);
      await r.ready;
      expect(r.view, typeof data).not.toBeNull();
      expect(r.node.querySelector('[data-testid="mp-trace"]') ?? r.node).toBeTruthy();
      expect(r.view!.iterations.length).toBe(5);
    }
  });

  it('refuses a document that unpacks past the limit, or text that is neither JSON nor base64', async () => {
    const big = packed(' '.repeat(1 << 20) + '{}');  // a megabyte of blanks gzips to about a kilobyte
    await expect(unpack(big, 1 << 16)).rejects.toThrow(/more than 65536 bytes/);
    const r = renderTrace('not base64 !!', '<p>fallback</p>');
    await r.ready;
    expect(r.view).toBeNull();
    expect(r.node.querySelector('[data-testid="mp-schema-error"]')?.textContent).toMatch(/could not be unpacked/);
    expect(r.node.textContent).toMatch(/fallback/);
  });
});
