// A small TOML (v1.0) reader for the part of the language that containers' registries.conf
// files use: comments, `key = value` with bare or quoted keys, basic and literal strings,
// booleans, integers, arrays of those (over several lines, trailing comma allowed), tables
// `[a.b]` and arrays of tables `[[registry]]` / `[[registry.mirror]]` (a header below an array
// of tables addresses its last element, as TOML says).
//
// Everything else TOML has (multi-line strings, floats, dates, inline tables, dotted keys) is
// refused with an error naming the file, line and what is unsupported: a file bootsmith cannot
// read completely is never half-applied. Each key keeps its line so callers can name it too.
// Why not a dependency: this subset is ~250 lines, the grammar pieces we need are small, and
// errors with line numbers in our own words matter more here than TOML completeness.
//
// Does: parse text into tables (pure). Does not: know what registries.conf means
// (src/images/fetch/oci/registries-conf.ts). Next: registries-conf.ts.
import { BadRequestError } from '../../../errors.js';

export type TomlScalar = string | boolean | number;
export type TomlValue = TomlScalar | TomlScalar[] | TomlTable | TomlTable[];

export interface TomlEntry {
  value: TomlValue;
  line: number;
}

export class TomlTable {
  readonly entries = new Map<string, TomlEntry>();
  constructor(readonly line: number) {}
}

/** A registries.conf is a few KiB; a larger input is not one (and must not cost much to refuse). */
export const MAX_TOML_BYTES = 1024 * 1024;
/** Arrays nest at most this deep (registries.conf has none nested at all). */
const MAX_ARRAY_DEPTH = 4;

export function parseTomlSubset(text: string, file: string): TomlTable {
  if (Buffer.byteLength(text) > MAX_TOML_BYTES)
    throw new BadRequestError(`${file}: larger than ${MAX_TOML_BYTES} bytes; not a registries.conf`, { file });
  return new Parser(text, file).document();
}

class Parser {
  private pos = 0;
  private line = 1;
  private readonly root = new TomlTable(1);
  private current: TomlTable;

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {
    this.current = this.root;
  }

  document(): TomlTable {
    for (;;) {
      this.skipBlank();
      if (this.pos >= this.text.length) return this.root;
      const ch = this.text[this.pos];
      if (ch === '[') this.header();
      else this.keyValue(this.current);
      this.endOfLine();
    }
  }

  private fail(why: string, line = this.line): never {
    throw new BadRequestError(`${this.file} line ${line}: ${why}`, { file: this.file, line });
  }

  /** Skips spaces, tabs, comments and newlines. */
  private skipBlank(): void {
    for (;;) {
      this.skipSpaces();
      const ch = this.text[this.pos];
      if (ch === '#') this.skipComment();
      else if (ch === '\n') {
        this.pos++;
        this.line++;
      } else if (ch === '\r' && this.text[this.pos + 1] === '\n') {
        this.pos += 2;
        this.line++;
      } else return;
    }
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos++;
  }

  private skipComment(): void {
    while (this.pos < this.text.length && this.text[this.pos] !== '\n') {
      const code = this.text.charCodeAt(this.pos);
      if ((code < 0x20 && code !== 0x09 && code !== 0x0d) || code === 0x7f) this.fail('control character in a comment');
      this.pos++;
    }
  }

  /** After a statement only spaces and a comment may follow on the line. */
  private endOfLine(): void {
    this.skipSpaces();
    if (this.text[this.pos] === '#') this.skipComment();
    if (this.pos >= this.text.length) return;
    if (this.text[this.pos] === '\n' || (this.text[this.pos] === '\r' && this.text[this.pos + 1] === '\n')) return;
    this.fail(`unexpected ${JSON.stringify(this.text[this.pos])} after the value (one key = value per line)`);
  }

  private header(): void {
    const line = this.line;
    const isArray = this.text.startsWith('[[', this.pos);
    this.pos += isArray ? 2 : 1;
    const path: string[] = [];
    for (;;) {
      this.skipSpaces();
      path.push(this.key());
      this.skipSpaces();
      if (this.text[this.pos] === '.') {
        this.pos++;
        continue;
      }
      break;
    }
    const close = isArray ? ']]' : ']';
    if (!this.text.startsWith(close, this.pos)) this.fail(`a table header must end with ${close}`);
    this.pos += close.length;

    let table = this.root;
    for (const [i, name] of path.entries()) {
      const last = i === path.length - 1;
      const existing = table.entries.get(name);
      if (last && isArray) {
        if (existing === undefined) {
          const created = new TomlTable(line);
          table.entries.set(name, { value: [created], line });
          table = created;
        } else if (Array.isArray(existing.value) && existing.value.every((v) => v instanceof TomlTable)) {
          const created = new TomlTable(line);
          (existing.value as TomlTable[]).push(created);
          table = created;
        } else this.fail(`[[${path.join('.')}]]: ${name} is already defined on line ${existing.line} as another type`);
      } else if (existing === undefined) {
        const created = new TomlTable(line);
        table.entries.set(name, { value: created, line });
        table = created;
      } else if (existing.value instanceof TomlTable) {
        if (last) this.fail(`table [${path.join('.')}] is defined twice (first on line ${existing.line})`);
        table = existing.value;
      } else if (
        Array.isArray(existing.value) &&
        existing.value.length > 0 &&
        existing.value.every((v) => v instanceof TomlTable)
      ) {
        table = (existing.value as TomlTable[])[existing.value.length - 1]!;
        if (last) this.fail(`[${path.join('.')}] names an array of tables; use [[${path.join('.')}]]`);
      } else this.fail(`${name} is already defined on line ${existing.line} as a value, not a table`);
    }
    this.current = table;
  }

  private keyValue(table: TomlTable): void {
    const line = this.line;
    const key = this.key();
    this.skipSpaces();
    if (this.text[this.pos] === '.') this.fail('dotted keys are not supported here; use a [table] header');
    if (this.text[this.pos] !== '=') this.fail(`expected = after the key ${JSON.stringify(key)}`);
    this.pos++;
    this.skipSpaces();
    const value = this.value(0);
    const existing = table.entries.get(key);
    if (existing)
      this.fail(`${JSON.stringify(key)} is defined twice in one table (first on line ${existing.line})`, line);
    table.entries.set(key, { value, line });
  }

  private key(): string {
    const ch = this.text[this.pos];
    if (ch === '"') return this.basicString();
    if (ch === "'") return this.literalString();
    const start = this.pos;
    while (this.pos < this.text.length && /[A-Za-z0-9_-]/.test(this.text[this.pos]!)) this.pos++;
    if (this.pos === start) this.fail(`expected a key, found ${this.describeHere()}`);
    return this.text.slice(start, this.pos);
  }

  private value(depth: number): TomlScalar | TomlScalar[] {
    const ch = this.text[this.pos];
    if (ch === '"') {
      if (this.text.startsWith('"""', this.pos)) this.fail('multi-line strings are not supported here');
      return this.basicString();
    }
    if (ch === "'") {
      if (this.text.startsWith("'''", this.pos)) this.fail('multi-line strings are not supported here');
      return this.literalString();
    }
    if (ch === '[') return this.array(depth + 1);
    if (ch === '{') this.fail('inline tables are not supported here; use a [table] header');
    const start = this.pos;
    while (this.pos < this.text.length && /[A-Za-z0-9_+.:-]/.test(this.text[this.pos]!)) this.pos++;
    const word = this.text.slice(start, this.pos);
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (/^[+-]?(?:0|[1-9](?:_?[0-9])*)$/.test(word)) {
      const n = Number(word.replace(/_/g, ''));
      if (!Number.isSafeInteger(n)) this.fail(`the integer ${word} is too large`);
      return n;
    }
    if (word === '') this.fail(`expected a value, found ${this.describeHere()}`);
    this.fail(`${JSON.stringify(word)} is not a value this reader supports (strings, true/false, integers, arrays)`);
  }

  private array(depth: number): TomlScalar[] {
    if (depth > MAX_ARRAY_DEPTH) this.fail('arrays nest too deeply');
    this.pos++; // [
    const items: TomlScalar[] = [];
    for (;;) {
      this.skipBlank();
      if (this.text[this.pos] === ']') {
        this.pos++;
        return items;
      }
      if (this.pos >= this.text.length) this.fail('the array is not closed');
      const item = this.value(depth);
      if (Array.isArray(item)) this.fail('nested arrays are not supported here');
      items.push(item);
      this.skipBlank();
      if (this.text[this.pos] === ',') this.pos++;
      else if (this.text[this.pos] !== ']') this.fail(`expected , or ] in the array, found ${this.describeHere()}`);
    }
  }

  private basicString(): string {
    this.pos++; // "
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length || this.text[this.pos] === '\n')
        this.fail('the string is not closed on its line');
      const ch = this.text[this.pos++]!;
      if (ch === '"') return out;
      if (ch === '\\') {
        const esc = this.text[this.pos++];
        switch (esc) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'u':
          case 'U': {
            const len = esc === 'u' ? 4 : 8;
            const hex = this.text.slice(this.pos, this.pos + len);
            if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) this.fail(`bad \\${esc} escape in a string`);
            const code = parseInt(hex, 16);
            if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
              this.fail(`\\${esc}${hex} is not a Unicode scalar value`);
            out += String.fromCodePoint(code);
            this.pos += len;
            break;
          }
          default:
            this.fail(`unknown escape \\${esc ?? ''} in a string`);
        }
        continue;
      }
      const code = ch.charCodeAt(0);
      if ((code < 0x20 && code !== 0x09) || code === 0x7f) this.fail('control character in a string');
      out += ch;
    }
  }

  private literalString(): string {
    this.pos++; // '
    const end = this.text.indexOf("'", this.pos);
    const newline = this.text.indexOf('\n', this.pos);
    if (end < 0 || (newline >= 0 && newline < end)) this.fail('the string is not closed on its line');
    const out = this.text.slice(this.pos, end);
    this.pos = end + 1;
    return out;
  }

  private describeHere(): string {
    if (this.pos >= this.text.length) return 'the end of the file';
    return JSON.stringify(this.text.slice(this.pos, this.pos + 12));
  }
}
