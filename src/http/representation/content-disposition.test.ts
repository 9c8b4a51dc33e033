import { describe, expect, it } from 'vitest';
import { contentDisposition } from './content-disposition.js';

describe('contentDisposition', () => {
  it.each([
    ['discovery.iso', 'attachment; filename="discovery.iso"'],
    ['with space & (parens).iso', 'attachment; filename="with space & (parens).iso"'],
    ['café "x".iso', `attachment; filename="caf_ _x_.iso"; filename*=UTF-8''caf%C3%A9%20%22x%22.iso`],
    ['back\\slash', `attachment; filename="back_slash"; filename*=UTF-8''back%5Cslash`],
    ['tab\there', `attachment; filename="tab_here"; filename*=UTF-8''tab%09here`],
    ['日本.iso', `attachment; filename="__.iso"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.iso`],
    ['😀', `attachment; filename="__"; filename*=UTF-8''%F0%9F%98%80`],
    ['a"b~|`^_!#$&+-.c', `attachment; filename="a_b~|\`^_!#$&+-.c"; filename*=UTF-8''a%22b~|\`^_!#$&+-.c`],
    ['', 'attachment; filename=""'],
  ])('%j → %s', (name, expected) => {
    expect(contentDisposition(name)).toBe(expected);
  });
});
