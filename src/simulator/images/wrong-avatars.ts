import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findPackageRoot } from '../../config/package-root';
import type { OrderStore } from '../order-store';
import type { WrongAvatar } from '../options';
import type { OrderRecord } from '../state-schema';
import type { SourcePicture } from './avatar-renderer';

/** The stand-in pictures ship in the package's samples/avatars/ (provenance in its README). */
const STAND_INS = path.join(findPackageRoot(), 'samples', 'avatars');

let anotherPerson: SourcePicture | undefined;
let unsafe: Buffer | undefined;

/** A real portrait of someone else (public domain), drawn in the style like a selfie. */
export function anotherPersonPicture(): SourcePicture {
  anotherPerson ??= {
    key: 'another-person',
    bytes: readFileSync(path.join(STAND_INS, 'another-person.jpg')),
    format: 'jpeg',
  };
  return anotherPerson;
}

/** Served as it is: any resampling or restyling could change what the classifier says of it. */
export function unsafePng(): Buffer {
  unsafe ??= readFileSync(path.join(STAND_INS, 'flagged-unsafe.png'));
  return unsafe;
}

/**
 * What the avatars of `order` in `styleId` show instead of the model's person, if anything: the
 * option's first `orders` generation orders of the style under the model (by order id) are wrong.
 */
export function wrongAvatarOf(
  store: OrderStore,
  wrongAvatars: Readonly<Record<string, { shows: WrongAvatar; orders: number }>>,
  order: OrderRecord,
  styleId: number,
): WrongAvatar | undefined {
  const rule = wrongAvatars[String(styleId)];
  if (rule === undefined) return undefined;
  const earlier = store
    .childrenOf(order.parent)
    .filter((o) => o.kind === 'generation' && o.styles.includes(styleId) && o.id < order.id).length;
  return earlier < rule.orders ? rule.shows : undefined;
}
