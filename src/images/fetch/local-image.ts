// A local base image named by OS_IMAGES (`/abs/path`, `file://`): checked to be there and
// readable before it is verified or used in place, with its size.
// Does: stat the path and turn what is wrong with it into a load error that names it (a missing
// file is retried slowly: it may be mounted later). Does NOT: open, hash or parse it.
import { stat } from 'node:fs/promises';
import { describeError } from '../../errors.js';
import { ImageLoadError } from '../loader/load-error.js';

/** The size of the local image at `path`; throws ImageLoadError (`slow`) when it cannot be used. */
export async function localImageSize(path: string, label: string): Promise<number> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    throw new ImageLoadError(
      'upstream',
      `${label}: cannot read ${path}: ${describeError(err)}`,
      'slow',
      { path },
      { cause: err },
    );
  }
  if (!st.isFile()) throw new ImageLoadError('upstream', `${label}: ${path} is not a regular file`, 'slow', { path });
  return st.size;
}
