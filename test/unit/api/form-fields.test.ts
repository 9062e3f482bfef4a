import { requestFromForm } from '../../../src/api/form-fields';
import type { UploadedSelfie } from '../../../src/api/multipart-upload';

const selfie = (filename: string, index: number): UploadedSelfie => ({
  filename,
  reference: `blob:uploads/r1/b1/selfie-${index + 1}.png`,
  bytes: 10,
  sha256: 'x',
});
const selfies = [selfie('a.png', 0), selfie('b.jpg', 1)];
const form = (entries: [string, string][]) => {
  const fields = new Map<string, string[]>();
  for (const [k, v] of entries) fields.set(k, [...(fields.get(k) ?? []), v]);
  return fields;
};

describe('multipart fields to a pipeline request', () => {
  it('reads styles as a list, numbers as numbers, and the stored selfies as images', () => {
    const { request, issues } = requestFromForm(
      form([
        ['styles', '3, 5'],
        ['styles', '7'],
        ['gender', '2'],
        ['subjectId', 'u1'],
        ['polling', '{"initialIntervalMs":100}'],
      ]),
      selfies,
    );
    expect(issues).toEqual([]);
    expect(request).toEqual({
      images: ['blob:uploads/r1/b1/selfie-1.png', 'blob:uploads/r1/b1/selfie-2.png'],
      styles: [3, 5, 7],
      gender: 2,
      subjectId: 'u1',
      polling: { initialIntervalMs: 100 },
    });
  });

  it('takes styles as a JSON array too, and leaves text for the schema to refuse', () => {
    expect(requestFromForm(form([['styles', '[3,8]']]), selfies).request.styles).toEqual([3, 8]);
    expect(requestFromForm(form([['styles', '3,x']]), selfies).request.styles).toEqual([3, 'x']);
    expect(requestFromForm(form([['gender', 'woman']]), selfies).request.gender).toBe('woman');
  });

  it('maps mainImage to the index of that file', () => {
    expect(requestFromForm(form([['mainImage', 'b.jpg']]), selfies).request.mainImageIndex).toBe(1);
  });

  it('names unknown, repeated and conflicting fields', () => {
    const { issues } = requestFromForm(
      form([
        ['gender', '1'],
        ['gender', '2'],
        ['colour', 'red'],
        ['mainImage', 'c.png'],
        ['mainImageIndex', '0'],
      ]),
      selfies,
    );
    expect(issues.map((i) => i.path).sort()).toEqual(['colour', 'gender', 'mainImage', 'mainImage']);
  });
});
