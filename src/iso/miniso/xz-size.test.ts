// xzUncompressedSize as a table over real .xz streams (made with xz 5.4, the commands beside each
// constant): the size an index declares for one block and for several, with stream padding after
// it, and the answers for what is not a whole stream.
import { describe, expect, it } from 'vitest';

import { xzUncompressedSize } from './xz-size.js';

/** `printf 'hello\n' | xz -9 --check=crc64` */
const HELLO = Buffer.from(
  '/Td6WFoAAATm1rRGAgAhARwAAAAQz1jMAQAFaGVsbG8KAAAApWCX8ZT2/eAAAR4GwS+kHR+2830BAAAAAARZWg==',
  'base64',
);
/** 2,500 × `a` through `xz --block-size=1000 --check=crc32`: three blocks (1000, 1000, 500). */
const THREE_BLOCKS = Buffer.from(
  '/Td6WFoAAAFpIt42AgAhARYAAAB0L+Wj4APnAAtdADDv+7/+o7C5plYAAAAD2jiaAgAhARYAAAB0L+Wj4APnAAtdADDv+7/+o7C5plYAAAAD2jiaAgAhARYAAAB0L+Wj4AHzAAhdADDv+75JK+AAABFBkgUAAyPoByPoByD0AwBYc8ZCm+NRQAMAAAAAAVla',
  'base64',
);
/** `printf '' | xz`: a stream with no block. */
const EMPTY = Buffer.from('/Td6WFoAAATm1rRGAAAAABzfRCEftvN9AQAAAAAEWVo=', 'base64');

describe('xzUncompressedSize: table', () => {
  it.each<[string, Buffer, number | undefined]>([
    ['one block', HELLO, 6],
    ['three blocks', THREE_BLOCKS, 2500],
    ['no block', EMPTY, 0],
    ['followed by stream padding', Buffer.concat([HELLO, Buffer.alloc(8)]), 6],
    ['its last byte cut off', HELLO.subarray(0, -1), undefined],
    ['its footer magic damaged', Buffer.concat([HELLO.subarray(0, -2), Buffer.from('ZY')]), undefined],
    ['its index cut short', Buffer.concat([HELLO.subarray(0, 12), HELLO.subarray(-12)]), undefined],
    ['shorter than a header and footer', HELLO.subarray(0, 20), undefined],
    ['empty', Buffer.alloc(0), undefined],
    ['no xz at all', Buffer.alloc(64, 0x41), undefined],
  ])('%s', (_name, xz, expected) => {
    expect(xzUncompressedSize(xz)).toBe(expected);
  });
});
