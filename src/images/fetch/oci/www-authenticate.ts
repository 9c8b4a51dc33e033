// The `WWW-Authenticate` challenges a registry answers 401 with (RFC 9110 §11.6.1 syntax):
// `Bearer realm="https://auth.example/token",service="registry.example",scope="repository:x:pull"`
// or `Basic realm="Registry"`, possibly several challenges in one header. Parameter values
// may be tokens or quoted strings with backslash escapes; names are case-insensitive.
//
// Does: parse (pure, bounded by the header size node already caps). Does not: fetch tokens
// (registry-token.ts). Next: registry-token.ts.

export interface Challenge {
  /** Lower-cased scheme: `bearer`, `basic`, … */
  scheme: string;
  /** Lower-cased parameter names. */
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

export function parseChallenges(header: string | string[] | undefined): Challenge[] {
  if (header === undefined) return [];
  const text = Array.isArray(header) ? header.join(', ') : header;
  const out: Challenge[] = [];
  let pos = 0;
  const skip = () => {
    while (pos < text.length && (text[pos] === ' ' || text[pos] === '\t' || text[pos] === ',')) pos++;
  };
  for (;;) {
    skip();
    if (pos >= text.length) return out;
    const scheme = TOKEN.exec(text.slice(pos))?.[0];
    if (!scheme) return out; // malformed: keep what was understood
    pos += scheme.length;
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    out.push(challenge);
    for (;;) {
      while (text[pos] === ' ' || text[pos] === '\t') pos++;
      const save = pos;
      if (text[pos] === ',') pos++;
      while (text[pos] === ' ' || text[pos] === '\t') pos++;
      const name = TOKEN.exec(text.slice(pos))?.[0];
      if (!name) {
        pos = save;
        break;
      }
      let after = pos + name.length;
      while (text[after] === ' ' || text[after] === '\t') after++;
      if (text[after] !== '=') {
        pos = save; // the next challenge's scheme, not a parameter
        break;
      }
      pos = after + 1;
      while (text[pos] === ' ' || text[pos] === '\t') pos++;
      let value = '';
      if (text[pos] === '"') {
        pos++;
        while (pos < text.length && text[pos] !== '"') {
          if (text[pos] === '\\' && pos + 1 < text.length) pos++;
          value += text[pos++];
        }
        pos++; // closing quote
      } else {
        const token = TOKEN.exec(text.slice(pos))?.[0] ?? '';
        value = token;
        pos += token.length;
      }
      challenge.params[name.toLowerCase()] = value;
    }
  }
}
