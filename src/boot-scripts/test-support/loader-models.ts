// Independent models of how a kernel command line is made and read, for the boot-script tests:
// iPXE's `kernel` line (split on blanks, the words after the image joined by one space, quotes
// kept: ipxe src/core/exec.c split_command, image_set_cmdline), GRUB's lexer and `linux`
// command (quotes '…' and "…" dropped, blanks outside them split words; the loader joins the
// words with blanks, putting a word that holds a blank in "…" with `"` and `\` escaped:
// grub-core/script/yylex.l, grub-core/lib/cmdline.c), and the kernel's own parser
// (lib/cmdline.c next_arg: quotes group blanks, a value's surrounding quotes are dropped).
// Written from those behaviours, not from bootsmith's renderers (src/boot-scripts/).
// Does NOT: expand GRUB variables (the rendered scripts must hold none outside the echo lines).

/** The words after `kernel <image>` up to `||`, joined as iPXE hands them to the kernel. */
export function ipxeKernelCommandLine(line: string): string {
  const words = line.trim().split(/\s+/);
  if (words[0] !== 'kernel') throw new Error(`not an iPXE kernel line: ${line}`);
  const end = words.indexOf('||');
  return words.slice(2, end < 0 ? undefined : end).join(' ');
}

/** GRUB's lexer on one command line: its words, quotes removed. */
export function grubWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw new Error(`unterminated '…' in ${line}`);
      word = (word ?? '') + line.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '$') throw new Error(`a GRUB expansion in "…": ${line}`);
        if (line[j] === '\\') j++;
        text += line[j];
      }
      if (j >= line.length) throw new Error(`unterminated "…" in ${line}`);
      word = (word ?? '') + text;
      i = j;
    } else if (c === '\\') {
      word = (word ?? '') + (line[++i] ?? '');
    } else if ('$;|&<>{}'.includes(c)) {
      throw new Error(`GRUB syntax ${JSON.stringify(c)} outside quotes: ${line}`);
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The command line GRUB's `linux <image> <args…>` hands the kernel (without its BOOT_IMAGE= prefix). */
export function grubLinuxCommandLine(line: string): string {
  const [command, , ...args] = grubWords(line);
  if (command !== 'linux') throw new Error(`not a GRUB linux line: ${line}`);
  return args.map((a) => (/[ \t]/.test(a) ? `"${a.replace(/["\\]/g, (m) => `\\${m}`)}"` : a)).join(' ');
}

/** The kernel's reading of a command line: each parameter's name and value (undefined: no `=`). */
export function kernelParameters(cmdline: string): { name: string; value: string | undefined }[] {
  const params: { name: string; value: string | undefined }[] = [];
  let i = 0;
  while (i < cmdline.length) {
    while (cmdline[i] === ' ' || cmdline[i] === '\t') i++;
    if (i >= cmdline.length) break;
    let start = i;
    let inQuote = false;
    let quoted = false;
    if (cmdline[i] === '"') {
      i++;
      start = i;
      inQuote = true;
      quoted = true;
    }
    let equals = -1;
    for (; i < cmdline.length; i++) {
      const c = cmdline[i]!;
      if ((c === ' ' || c === '\t') && !inQuote) break;
      if (equals < 0 && c === '=') equals = i;
      if (c === '"') inQuote = !inQuote;
    }
    let arg = cmdline.slice(start, i);
    if (quoted && arg.endsWith('"')) arg = arg.slice(0, -1);
    if (equals < 0) {
      params.push({ name: arg, value: undefined });
      continue;
    }
    const name = cmdline.slice(start, equals);
    let value = arg.slice(equals - start + 1);
    if (value.startsWith('"')) {
      value = value.slice(1);
      if (value.endsWith('"')) value = value.slice(0, -1);
    }
    params.push({ name, value });
  }
  return params;
}
