// The human start line `bootsmith serve` prints on a terminal before its JSON log says
// "bootsmith listening": where it serves, where the console and API are, where the admin token
// is (its path, never the token), then the address note and any warnings, one per line.
//
//   bootsmith 0.1.0 serving on http://10.1.2.3:8080 — console http://10.1.2.3:8080/, API
//   http://10.1.2.3:8080/api/assisted-install/v2, admin token in /srv/bootsmith/data/auth/admin-token
//
// Does: render the text. Does NOT: decide whether a terminal is attached (src/cli/serve.ts) or
// compute any URL (./reachability.ts). Next: src/cli/serve.ts.
import { API_PREFIX } from '../url-grammar.js';

export interface StartSummary {
  version: string;
  /** This listener as others reach it. */
  servingUrl: string;
  /** SERVICE_BASE_URL: the console and the API live there (roles all and core). */
  serviceBaseUrl: string | undefined;
  authType: 'none' | 'local';
  /** DATA_DIR/auth/admin-token, absolute (AUTH_TYPE=local with the API). */
  adminTokenFile: string | undefined;
  notes: string[];
  warnings: string[];
}

export function startLines(s: StartSummary): string {
  const parts: string[] = [];
  if (s.serviceBaseUrl !== undefined) {
    parts.push(`console ${s.serviceBaseUrl}/`, `API ${s.serviceBaseUrl}${API_PREFIX}`);
    parts.push(
      s.authType === 'local' && s.adminTokenFile
        ? `admin token in ${s.adminTokenFile}`
        : 'no authentication (AUTH_TYPE=none)',
    );
  }
  const head = `bootsmith ${s.version} serving on ${s.servingUrl}${parts.length ? ` — ${parts.join(', ')}` : ''}`;
  return [head, ...s.notes.map((n) => `  note: ${n}`), ...s.warnings.map((w) => `  warning: ${w}`)]
    .map((line) => `${line}\n`)
    .join('');
}
