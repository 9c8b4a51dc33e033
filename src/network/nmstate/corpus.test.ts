// The nmstate → keyfile corpus: 30+ documents (every supported feature alone and combined,
// several hosts per InfraEnv), each checked three ways: the hand-written facts of its
// `expect` block, the full expected keyfiles in test-fixtures/expected/<case>/ byte for byte,
// and byte-identical output when converted again.
// Regenerate the expected files after a deliberate change with UPDATE_NMSTATE_FIXTURES=1 and
// review the diff: the `expect` facts are the independent check.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertHosts } from './convert.js';
import { FIXTURES, loadCorpus, readKeyfile } from './test-support/corpus.js';

const corpus = loadCorpus();
const UPDATE = process.env.UPDATE_NMSTATE_FIXTURES === '1';

describe('nmstate corpus', () => {
  it('has at least 30 documents', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
  });

  for (const c of corpus) {
    it(`${c.name}: ${c.description}`, () => {
      const files = convertHosts(c.hosts);
      const dir = path.join(FIXTURES, 'expected', c.name);
      if (UPDATE) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
        for (const f of files) writeFileSync(path.join(dir, f.name), f.contents);
      }
      expect(files.map((f) => f.name)).toEqual(readdirSync(dir).sort());
      for (const f of files) expect(f.contents, f.name).toBe(readFileSync(path.join(dir, f.name), 'utf8'));

      for (const [file, facts] of Object.entries(c.expect)) {
        const kf = files.find((f) => f.name === file);
        expect(kf, `${file} is produced`).toBeDefined();
        const values = readKeyfile(kf!.contents);
        for (const [key, value] of Object.entries(facts)) expect(values.get(key), `${file} ${key}`).toBe(String(value));
      }
      // Same input, same bytes; names are sorted.
      expect(convertHosts(c.hosts)).toEqual(files);
      expect(files.map((f) => f.name)).toEqual(files.map((f) => f.name).sort());
    });
  }
});
