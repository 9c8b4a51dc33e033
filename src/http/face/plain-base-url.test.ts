// plainBaseUrl: the plain-HTTP base iPXE gets, derived from a configured HTTPS base or the listener.
import { describe, expect, it } from 'vitest';
import { plainBaseUrl } from './plain-base-url.js';

describe('plainBaseUrl', () => {
  it('is the plain listener address without a configured base', () => {
    expect(plainBaseUrl(undefined, 'http://127.0.0.1:8081', 8081)).toBe('http://127.0.0.1:8081');
  });
  it('takes the configured HTTPS base host and path with scheme http and the plain port', () => {
    expect(plainBaseUrl('https://boot.example.com', 'http://0.0.0.0:8081', 8081)).toBe('http://boot.example.com:8081');
    expect(plainBaseUrl('https://boot.example.com:8443/bootsmith', 'http://127.0.0.1:80', 80)).toBe(
      'http://boot.example.com/bootsmith',
    );
    expect(plainBaseUrl('https://[fd00::1]:8443', 'http://127.0.0.1:8081', 8081)).toBe('http://[fd00::1]:8081');
  });
});
