// pixiecore's API mode (danderson/netboot pixiecore, README.api): pixiecore, in front of the
// network, asks `GET <prefix>/v1/boot/<mac>` for each PXE client and boots what the answer names:
// `{"kernel": URL, "initrd": [URL…], "cmdline": "…"}`; any non-200 answer means "do not boot this
// machine" (pixiecore ignores it). A bootsmith deployment answers at prefix `<base>/pxe`, so an
// existing pixiecore (or smee) is pointed at it unchanged: `pixiecore api http://bootsmith:8080/pxe`.
// cmdline is the live boot's (rootfs URL, fixed arguments, the InfraEnv's); pixiecore runs it
// through Go's text/template (for its `{{ URL "…" }}`), so a `{{` or `}}` an InfraEnv argument
// holds inside double quotes is written as a template string literal that prints itself.
// Does NOT: decide (./front-door.ts).

export interface PixiecoreBoot {
  kernel: string;
  initrd: string[];
  cmdline: string;
}

export function pixiecoreAnswer(files: { kernel: string; initrd: string; kernelArguments: string }): PixiecoreBoot {
  return {
    kernel: files.kernel,
    initrd: [files.initrd],
    cmdline: files.kernelArguments.replace(/\{\{|\}\}/g, (braces) => `{{"${braces}"}}`),
  };
}
