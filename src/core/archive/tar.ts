// A minimal ustar writer for the static-network-config download (regular files only).
//
// Upstream serves that file as a tar of the generated NetworkManager keyfiles.
// No long names (> 100 bytes), no links, no reading.

export function writeTar(files: readonly { name: string; data: Buffer; mode?: number }[], mtime = new Date(0)): Buffer {
  const blocks: Buffer[] = [];
  for (const f of files) {
    if (Buffer.byteLength(f.name) > 100) throw new Error(`tar member name too long: ${f.name}`);
    const h = Buffer.alloc(512);
    const put = (s: string, off: number, len: number) => h.write(s.slice(0, len), off, len, 'utf8');
    const oct = (n: number, len: number) => n.toString(8).padStart(len - 1, '0') + '\0';
    put(f.name, 0, 100);
    put(oct(f.mode ?? 0o644, 8), 100, 8);
    put(oct(0, 8), 108, 8);
    put(oct(0, 8), 116, 8);
    put(oct(f.data.length, 12), 124, 12);
    put(oct(Math.floor(mtime.getTime() / 1000), 12), 136, 12);
    put('        ', 148, 8);
    put('0', 156, 1);
    put('ustar\0', 257, 6);
    put('00', 263, 2);
    let sum = 0;
    for (const b of h) sum += b;
    put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
    blocks.push(h, f.data, Buffer.alloc((512 - (f.data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
