// Go-style durations as upstream's settings spell them (`3m`, `90s`, `1h30m`, `500ms`), parsed
// into milliseconds. A leaf used by src/config.ts and the image store's settings
// (src/images/store-settings.ts); it does not know any variable name or range.

/** Milliseconds of a Go-style duration; undefined when `text` is not one (a bare number is not). */
export function parseDuration(text: string): number | undefined {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let total = 0;
  let matched = 0;
  while (re.lastIndex < text.length) {
    const m = re.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * units[m[2]!]!;
    matched++;
  }
  return matched > 0 ? total : undefined;
}
