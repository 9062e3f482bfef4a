import { crc32 } from 'node:zlib';
import { zipArchive } from '../../../src/api/zip-archive';

/** The entries a zip's central directory lists, each read back from its local header. */
function readZip(zip: Buffer): Array<{ name: string; body: Buffer; crcMatches: boolean }> {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const crc = zip.readUInt32LE(at + 16);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    expect(zip.readUInt32LE(local)).toBe(0x04034b50);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const body = zip.subarray(start, start + size);
    entries.push({ name, body, crcMatches: crc32(body) === crc });
    at += 46 + nameLength;
  }
  return entries;
}

describe('zipArchive', () => {
  it('holds every entry, stored, under its UTF-8 name, with its checksum', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const zip = zipArchive([
      { name: 'avatar-1.png', body: png },
      { name: 'aquarelle-é.jpg', body: Buffer.alloc(5000, 7) },
    ]);
    expect(readZip(zip)).toEqual([
      { name: 'avatar-1.png', body: png, crcMatches: true },
      { name: 'aquarelle-é.jpg', body: Buffer.alloc(5000, 7), crcMatches: true },
    ]);
  });

  it('writes an empty archive as the end record alone', () => {
    expect(readZip(zipArchive([]))).toEqual([]);
  });
});
