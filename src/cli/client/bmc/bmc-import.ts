// `bootsmith bmc import FILE [--infra-env ID] [--password-dir DIR]`: adds BMCs from a CSV or YAML
// file, one per row:
//
//   CSV   a header line naming the columns, then one BMC a line:
//         name,address,username,password_file[,infra_env_id,insecure,ca_file,profile,boot_mode,eject,boot_method]
//   YAML  a list of mappings with the same keys (`insecure: true`)
//
// password_file and ca_file are paths relative to the imported file's directory (password_file:
// to --password-dir DIR when given) and must stay inside it: no absolute path, no `..`, no symbolic
// link leading out (./import-files.ts) — the file must not choose what is read and sent. Every row's
// files are read before anything is sent: one refused or unreadable file refuses the whole import,
// each such row reported with its line or item and the column. Then each row is added alone (the
// service queues its refresh); a row the service refuses is reported with the reason, the others
// are added; exit 1 when any failed. --infra-env fills rows without one.
// Does NOT: wait for the refresh jobs (`bmc list` shows them), print passwords, or accept a
// password in the file itself (only a path to a file holding it). Errors name a line or item and
// a column by position, never by what it holds (a password file given by mistake is not echoed).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { withContext } from '../../../errors.js';
import { argument, valueOption } from '../../options.js';
import { CliError, defineVerb } from '../../verb.js';
import { ApiClient, CLIENT_OPTIONS } from '../api-client.js';
import { type BmcView, MAX_CA_FILE_BYTES, MAX_PASSWORD_FILE_BYTES, passwordOfFile } from './bmc-client.js';
import { type FilesDir, ImportFileError, readInside } from './import-files.js';

/** An import file of a few thousand BMCs is a few hundred KiB. */
const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
/** Rows in one import: a fleet, not a data center's worth in one go. */
const MAX_IMPORT_ROWS = 5_000;
const KEYS = [
  'name',
  'address',
  'username',
  'password_file',
  'infra_env_id',
  'insecure',
  'ca_file',
  'profile',
  'boot_mode',
  'eject',
  'boot_method',
];

export type ImportRow = Record<string, string>;

/** Splits one CSV line (RFC 4180 quotes: "a,b" and "" inside them). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field.trim());
      field = '';
    } else field += c;
  }
  out.push(field.trim());
  return out;
}

/** The rows of a CSV or YAML import, each with where it came from; a clear error for a bad file. */
export function parseImport(text: string, file: string): { where: string; row: ImportRow }[] {
  const trimmed = text.trimStart();
  const yaml = /\.ya?ml$/i.test(file) || trimmed.startsWith('-') || trimmed.startsWith('[');
  let rows: { where: string; row: ImportRow }[];
  if (yaml) {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw new CliError(file, `not YAML: ${(err as Error).message.split('\n')[0]}`);
    }
    if (!Array.isArray(doc))
      throw new CliError(file, 'a YAML import is a list of BMCs (name, address, username, password_file, …)');
    rows = doc.map((item, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item))
        throw new CliError(file, `item ${i + 1}: not a mapping`);
      const row: ImportRow = {};
      for (const [k, v] of Object.entries(item as Record<string, unknown>)) {
        if (!KEYS.includes(k)) throw new CliError(file, `item ${i + 1}: a key is none of (${KEYS.join(', ')})`);
        if (typeof v !== 'string' && typeof v !== 'boolean' && typeof v !== 'number')
          throw new CliError(file, `item ${i + 1}: ${k} must be a string`);
        row[k] = String(v);
      }
      return { where: `item ${i + 1}`, row };
    });
  } else {
    const lines = text
      .split(/\r?\n/)
      .map((l, i) => ({ l, n: i + 1 }))
      .filter(({ l }) => l.trim() !== '' && !l.trimStart().startsWith('#'));
    const header = lines.shift();
    if (!header) throw new CliError(file, 'empty');
    const columns = csvFields(header.l);
    columns.forEach((c, i) => {
      if (!KEYS.includes(c))
        throw new CliError(file, `line ${header.n}: column ${i + 1} is none of (${KEYS.join(', ')})`);
    });
    rows = lines.map(({ l, n }) => {
      const fields = csvFields(l);
      if (fields.length !== columns.length)
        throw new CliError(file, `line ${n}: ${fields.length} fields, the header has ${columns.length}`);
      return {
        where: `line ${n}`,
        row: Object.fromEntries(columns.map((c, i) => [c, fields[i]!]).filter(([, v]) => v !== '')),
      };
    });
  }
  if (rows.length > MAX_IMPORT_ROWS)
    throw new CliError(file, `${rows.length} BMCs; one import takes at most ${MAX_IMPORT_ROWS}`);
  for (const { where, row } of rows) {
    for (const key of ['name', 'address', 'username', 'password_file'])
      if (!row[key]) throw new CliError(file, `${where}: ${key} is required`);
  }
  return rows;
}

/** A row's password and CA, read inside their directories; an ImportFileError naming the column otherwise. */
async function rowFiles(
  row: ImportRow,
  dirs: { password: FilesDir; ca: FilesDir },
): Promise<{ password: string; caPem: string | undefined }> {
  const read = passwordOfFile(
    await readInside(dirs.password, 'password_file', row.password_file!, MAX_PASSWORD_FILE_BYTES),
  );
  if ('problem' in read) throw new ImportFileError('password_file', read.problem);
  const caPem = row.ca_file ? await readInside(dirs.ca, 'ca_file', row.ca_file, MAX_CA_FILE_BYTES) : undefined;
  return { password: read.password, caPem };
}

export const bmcImport = defineVerb({
  name: 'bootsmith bmc import',
  summary: 'Add BMCs from a CSV or YAML file (name, address, username, password_file, …)',
  options: {
    infraEnv: valueOption({ long: 'infra-env', value: 'ID', help: 'InfraEnv of the rows that name none' }),
    passwordDir: valueOption({
      long: 'password-dir',
      value: 'DIR',
      help: "the directory password_file paths are relative to and must stay in [default: the file's own]",
    }),
    ...CLIENT_OPTIONS,
  },
  positionals: { file: argument('FILE') },
  async run({ options, positionals }, io) {
    const file = positionals.file;
    const text = await withContext(
      'reading the import file',
      async () => {
        const data = await readFile(file);
        if (data.length > MAX_IMPORT_BYTES) throw new Error(`more than ${MAX_IMPORT_BYTES} bytes`);
        return data.toString('utf8');
      },
      (message, cause) => new CliError(file, message, { cause }),
    );
    const rows = parseImport(text, file);
    const own = path.dirname(path.resolve(file));
    const dirs = {
      ca: { dir: own, label: `the import file's directory (${own})` },
      password:
        options.passwordDir !== undefined
          ? { dir: path.resolve(options.passwordDir), label: `--password-dir (${path.resolve(options.passwordDir)})` }
          : { dir: own, label: `the import file's directory (${own})` },
    };
    // Every row's files first: a refused path refuses the import before anything is sent.
    const files: Awaited<ReturnType<typeof rowFiles>>[] = [];
    const refused: string[] = [];
    for (const { where, row } of rows) {
      try {
        files.push(await rowFiles(row, dirs));
      } catch (err) {
        if (!(err instanceof ImportFileError)) throw err;
        refused.push(`${where} (${row.name}): ${err.message}`);
      }
    }
    if (refused.length > 0) {
      for (const line of refused) io.stderr.write(`bootsmith: ${file}: ${line}\n`);
      throw new CliError(file, `${refused.length} of ${rows.length} row(s) refused: nothing was added`);
    }
    const client = ApiClient.from(options, io);
    let failures = 0;
    for (const [i, { where, row }] of rows.entries()) {
      try {
        const { password, caPem } = files[i]!;
        const insecure = /^(true|yes|1)$/i.test(row.insecure ?? '');
        const body = {
          name: row.name,
          address: row.address,
          username: row.username,
          password,
          ...(insecure ? { insecure: true } : {}),
          ...(caPem !== undefined ? { ca_pem: caPem } : {}),
          ...((row.infra_env_id ?? options.infraEnv) ? { infra_env_id: row.infra_env_id ?? options.infraEnv } : {}),
          ...(row.profile ? { profile: row.profile } : {}),
          ...(row.boot_mode ? { boot_mode: row.boot_mode } : {}),
          ...(row.eject ? { eject: row.eject } : {}),
          ...(row.boot_method ? { boot_method: row.boot_method } : {}),
        };
        const created = await client.callExtension<BmcView>('POST', '/bmcs', body);
        io.stdout.write(`${created.name}: added (${created.id}); its inventory is being read\n`);
      } catch (err) {
        failures++;
        io.stderr.write(
          `bootsmith: ${file}: ${where} (${row.name}): ${err instanceof Error ? err.message : String(err)}\n`,
        );
      }
    }
    if (failures > 0) throw new CliError(file, `${failures} of ${rows.length} BMC(s) not added`);
    return 0;
  },
});
