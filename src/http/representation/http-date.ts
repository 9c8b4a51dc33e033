// HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate, RFC 850 and asctime, strictly.
//
// Does: turn a field value into milliseconds since the epoch, or undefined. Pure, no
// regular expressions. Does NOT: format dates (Date.prototype.toUTCString() does) or compare them.
import { COMMA, DASH, SP, ZERO, isDigit, skipOws, trimEnd } from './header-chars.js';

const MONTHS: readonly string[] = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const SHORT_DAYS: readonly string[] = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LONG_DAYS: readonly string[] = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const DAYS_IN_MONTH: readonly number[] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Two ASCII digits at s[i] as a number, or -1. */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - ZERO;
  const b = s.charCodeAt(i + 1) - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** Index in `names` of the name found at s[at], or -1. */
function nameAt(s: string, at: number, names: readonly string[]): number {
  for (let k = 0; k < names.length; k++) {
    if (s.startsWith(names[k] as string, at)) return k;
  }
  return -1;
}

/** `HH:MM:SS` at s[i] as seconds of the day, or -1. */
function timeAt(s: string, i: number): number {
  if (s.charCodeAt(i + 2) !== 0x3a || s.charCodeAt(i + 5) !== 0x3a) return -1;
  const h = twoDigits(s, i);
  const m = twoDigits(s, i + 3);
  const sec = twoDigits(s, i + 6);
  if (h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60) return -1;
  return h * 3600 + m * 60 + sec;
}

/** Milliseconds since the epoch, or undefined for a day that does not exist (Feb 30). */
function utc(year: number, month: number, day: number, seconds: number): number | undefined {
  if (year < 1000) return undefined; // also keeps Date.UTC from reading 0-99 as 19xx
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 1 && leap ? 29 : (DAYS_IN_MONTH[month] as number);
  if (day < 1 || day > days) return undefined;
  return Date.UTC(year, month, day) + seconds * 1000;
}

/**
 * Parses an HTTP-date: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850
 * form (`Sunday, 06-Nov-94 08:49:37 GMT`, two-digit years read per RFC 9110 §5.6.7) and
 * asctime (`Sun Nov  6 08:49:37 1994`, taken as UTC). Case-sensitive, as the grammar says;
 * surrounding blanks are allowed; the day name is not checked against the date. Returns
 * milliseconds since the epoch (a whole second), or undefined for anything else — unlike
 * Date.parse(), which accepts free text and reads asctime as local time.
 */
export function parseHttpDate(value: string): number | undefined {
  const from = skipOws(value, 0);
  const to = trimEnd(value);
  const s = from === 0 && to === value.length ? value : value.slice(from, to);
  const n = s.length;

  if (n === 29 && s.charCodeAt(3) === COMMA) {
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
    if (nameAt(s, 0, SHORT_DAYS) < 0 || s.charCodeAt(4) !== SP || s.charCodeAt(7) !== SP) return undefined;
    if (s.charCodeAt(11) !== SP || s.charCodeAt(16) !== SP || s.charCodeAt(25) !== SP || !s.endsWith('GMT'))
      return undefined;
    const day = twoDigits(s, 5);
    const month = nameAt(s, 8, MONTHS);
    const hi = twoDigits(s, 12);
    const lo = twoDigits(s, 14);
    const time = timeAt(s, 17);
    if (day < 0 || month < 0 || hi < 0 || lo < 0 || time < 0) return undefined;
    return utc(hi * 100 + lo, month, day, time);
  }

  if (n === 24 && s.charCodeAt(3) === SP) {
    // asctime: "Sun Nov  6 08:49:37 1994" (day as two digits or SP + one digit)
    if (nameAt(s, 0, SHORT_DAYS) < 0 || s.charCodeAt(7) !== SP || s.charCodeAt(10) !== SP || s.charCodeAt(19) !== SP) {
      return undefined;
    }
    const month = nameAt(s, 4, MONTHS);
    const d2 = s.charCodeAt(9);
    const day = s.charCodeAt(8) !== SP ? twoDigits(s, 8) : isDigit(d2) ? d2 - ZERO : -1;
    const time = timeAt(s, 11);
    const hi = twoDigits(s, 20);
    const lo = twoDigits(s, 22);
    if (month < 0 || day < 0 || time < 0 || hi < 0 || lo < 0) return undefined;
    return utc(hi * 100 + lo, month, day, time);
  }

  const comma = s.indexOf(',');
  if (comma >= 6 && n === comma + 24) {
    // rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT"
    const dayName = nameAt(s, 0, LONG_DAYS);
    if (dayName < 0 || (LONG_DAYS[dayName] as string).length !== comma) return undefined;
    const p = comma + 2;
    if (s.charCodeAt(p - 1) !== SP || s.charCodeAt(p + 2) !== DASH || s.charCodeAt(p + 6) !== DASH) return undefined;
    if (s.charCodeAt(p + 9) !== SP || s.charCodeAt(p + 18) !== SP || !s.endsWith('GMT')) return undefined;
    const day = twoDigits(s, p);
    const month = nameAt(s, p + 3, MONTHS);
    const yy = twoDigits(s, p + 7);
    const time = timeAt(s, p + 10);
    if (day < 0 || month < 0 || yy < 0 || time < 0) return undefined;
    // A two-digit year more than 50 years in the future means the most recent past one.
    const thisYear = new Date().getUTCFullYear();
    let year = thisYear - (thisYear % 100) + yy;
    if (year > thisYear + 50) year -= 100;
    return utc(year, month, day, time);
  }

  return undefined;
}
