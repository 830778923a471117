import { describe, expect, it } from 'vitest';
import { checkDocument } from '../src/schema';
import { renderTrace } from '../src/render';
import { fixture } from './helpers';

describe('schema version handling', () => {
  it('accepts the documents the recorder writes', () => {
    const check = checkDocument(fixture('mlp.json'));
    expect(check).toEqual({ ok: true, major: 1, minor: 0 });
  });

  it('accepts a newer minor version (only optional fields are added)', () => {
    expect(checkDocument({ ...fixture('mlp.json'), schema_version: '1.7', new_section: [] }).ok).toBe(true);
  });

  it('refuses an unknown major version with a clear message', () => {
    const check = checkDocument({ ...fixture('mlp.json'), schema_version: '2.0' });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(/schema version 2\.0.*cannot read.*1\.x/);
  });

  it('refuses what is not a trace', () => {
    for (const bad of [null, [], 'text', { schema_version: 3 }, { schema_version: '1' }]) {
      expect(checkDocument(bad).ok).toBe(false);
    }
    const missing = checkDocument({ schema_version: '1.0', steps: [] });
    expect(!missing.ok && missing.message).toMatch(/incomplete: it has no graph, tensors, states, layers/);
  });

  it('renders the error and the bundle\'s HTML below it for an unknown major version', () => {
    const { node, view } = renderTrace({ ...fixture('mlp.json'), schema_version: '2.1' }, '<p class="fb">static view</p>');
    expect(view).toBeNull();
    expect(node.dataset.testid).toBe('mp-trace');
    expect(node.dataset.schemaVersion).toBe('2.1');
    const error = node.querySelector('[data-testid="mp-schema-error"]');
    expect(error?.textContent).toMatch(/2\.1/);
    expect(error?.nextElementSibling?.querySelector('p.fb')?.textContent).toBe('static view');
  });
});
