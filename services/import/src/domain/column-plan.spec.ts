import { isDomainError } from '@crm/observability';
import { mapsCustomFields, parseFieldMappings, needsCustomFields, planColumns, resolveCustomTargets } from './column-plan';
import { recogniseHeader } from './contact-fields';
import { CustomFieldCatalog } from './custom-fields';
import { rowFields, rowProblem, splitTags } from './contact-row';

describe('header recognition', () => {
  it.each([
    ['First Name', 'firstName'],
    ['first_name', 'firstName'],
    ['firstName', 'firstName'],
    ['LAST-NAME', 'lastName'],
    ['Surname', 'lastName'],
    ['E-mail', 'email'],
    ['Email Address', 'email'],
    [' email ', 'email'],
    ['Phone Number', 'phone'],
    ['Job Title', 'title'],
    ['Tags', 'tags'],
    ['External ID', 'externalId'],
    ['externalId', 'externalId'],
  ])('reads %s as %s', (header, field) => {
    expect(recogniseHeader(header)).toBe(field);
  });

  it('leaves unknown headers unrecognised', () => {
    expect(recogniseHeader('Favourite colour')).toBeUndefined();
  });
});

describe('column plan', () => {
  it('maps recognised columns and reports the others as ignored', () => {
    const plan = planColumns(['First Name', 'E-mail', 'Company', ''], {});
    expect([...plan.fields.entries()]).toEqual([
      [0, 'firstName'],
      [1, 'email'],
    ]);
    expect(plan.ignoredColumns).toEqual(['Company', '(column 4)']);
  });

  it('lets field_mappings name the email column', () => {
    const plan = planColumns(['Name', 'Correo'], parseFieldMappings('{"Correo": "email", "Name": "first_name"}'));
    expect(plan.fields.get(1)).toBe('email');
    expect(plan.fields.get(0)).toBe('firstName');
  });

  it('lets field_mappings ignore a recognised column', () => {
    const plan = planColumns(['Email', 'Title'], { Title: null });
    expect(plan.ignoredColumns).toEqual(['Title']);
  });

  it('refuses a header without an email column, naming the columns it found', () => {
    try {
      planColumns(['First Name', 'Company'], {});
      throw new Error('expected a refusal');
    } catch (error) {
      expect(isDomainError(error) && error.kind).toBe('invalid_argument');
      expect((error as Error).message).toMatch(/no email column.*First Name, Company/);
    }
  });
});

describe('field_mappings', () => {
  it.each(['{not json', '[]', '"email"', '{"A": 3}', '{"A": "favouriteColour"}'])('refuses %s', (raw) => {
    expect(() => parseFieldMappings(raw)).toThrow(/field_mappings/);
  });

  it('treats a missing or blank value as no mappings', () => {
    expect(parseFieldMappings(undefined)).toEqual({});
    expect(parseFieldMappings('  ')).toEqual({});
  });
});

describe('rows', () => {
  const plan = planColumns(['Email', 'First Name', 'Tags', 'Notes'], {});

  it('splits tags on semicolons and commas', () => {
    expect(splitTags('vip; partner,  2024,,vip')).toEqual(['vip', 'partner', '2024']);
    expect(rowFields(['a@example.com', 'Ann', 'x;y', ''], plan).tags).toEqual(['x', 'y']);
  });

  it('keeps formula-like cells as plain text', () => {
    const fields = rowFields(['a@example.com', '=HYPERLINK("http://evil","x")', '', '+1-2'], plan);
    expect(fields.firstName).toBe('=HYPERLINK("http://evil","x")');
    expect(fields.notes).toBe('+1-2');
    expect(rowProblem(fields)).toBeUndefined();
  });

  it('explains every problem of a row in words', () => {
    expect(rowProblem({ email: 'not-an-email' })).toBe(
      'Email "not-an-email" is not a valid email address. A first name or a last name is required.',
    );
    expect(rowProblem({ firstName: 'Ann' })).toBe('Email is missing.');
    expect(rowProblem({ email: 'a@example.com', lastName: 'B', stage: 'Proposal Sent' })).toBeUndefined();
    expect(rowProblem({ email: 'a@example.com', lastName: 'B', stage: 'won' })).toMatch(/Stage "won" is not one of/);
  });

  it('lists the first ten ignored columns and counts the rest', () => {
    const headers = ['Email', ...Array.from({ length: 5000 }, (_, i) => `Extra ${i + 1}`)];
    const plan = planColumns(headers, {});
    expect(plan.ignoredColumns).toHaveLength(11);
    expect(plan.ignoredColumns[9]).toBe('Extra 10');
    expect(plan.ignoredColumns[10]).toBe('(and 4,990 more)');
  });
});

describe('custom fields', () => {
  const customFields = new CustomFieldCatalog([
    { key: 'shoeSize', label: 'Shoe size' },
    { key: 'favouriteColour', label: 'Favourite colour' },
    { key: 'workEmail', label: 'Work Email' },
    { key: 'segment', label: 'Status' },
  ]);

  it('fills a custom field from a header equal to its key or its label, trimmed and in any case', () => {
    const plan = planColumns(['Email', 'SHOESIZE', '  favourite COLOUR  ', 'Company'], {}, customFields);
    expect([...plan.fields.entries()]).toEqual([
      [0, 'email'],
      [1, 'customFields.shoeSize'],
      [2, 'customFields.favouriteColour'],
    ]);
    expect(plan.ignoredColumns).toEqual(['Company']);
  });

  it('does not match a header that only resembles a key or label once spaces or punctuation differ', () => {
    const plan = planColumns(['Email', 'shoe_size', 'Shoe-size'], {}, customFields);
    expect(plan.ignoredColumns).toEqual(['shoe_size', 'Shoe-size']);
  });

  it('lets a built-in header win over a custom field with the same label', () => {
    const plan = planColumns(['Email', 'Status'], {}, customFields);
    expect([...plan.fields.values()]).toEqual(['email', 'stage']);
  });

  it('gives a header whose built-in field an earlier column took to the custom field it names', () => {
    const plan = planColumns(['Email', 'Work Email', 'E-mail'], {}, customFields);
    expect([...plan.fields.entries()]).toEqual([
      [0, 'email'],
      [1, 'customFields.workEmail'],
    ]);
    expect(plan.ignoredColumns).toEqual(['E-mail']);
  });

  it('gives a custom field claimed by two columns to the first', () => {
    const plan = planColumns(['Email', 'shoeSize', 'Shoe Size'], {}, customFields);
    expect(plan.fields.get(1)).toBe('customFields.shoeSize');
    expect(plan.ignoredColumns).toEqual(['Shoe Size']);
  });

  it('lets field_mappings map a header to customFields.<key>, over a built-in name and over a label', () => {
    const mappings = resolveCustomTargets(
      parseFieldMappings('{"Size (EU)": "customFields.shoeSize", "Title": "customFields.favouriteColour", "Shoe size": null}'),
      customFields,
    );
    const plan = planColumns(['Email', 'Size (EU)', 'Title', 'Shoe size'], mappings, customFields);
    expect([...plan.fields.entries()]).toEqual([
      [0, 'email'],
      [1, 'customFields.shoeSize'],
      [2, 'customFields.favouriteColour'],
    ]);
    expect(plan.ignoredColumns).toEqual(['Shoe size']);
  });

  it('takes a mapped key whose case differs as the field, spelled as defined', () => {
    expect(resolveCustomTargets(parseFieldMappings('{"A": "customfields.SHOESIZE"}'), customFields)).toEqual({
      A: 'customFields.shoeSize',
    });
  });

  it('refuses an unknown customFields.<key> target as it refuses an unknown built-in one', () => {
    const mappings = parseFieldMappings('{"A": "customFields.hatSize"}');
    expect(mappings).toEqual({ A: 'customFields.hatSize' });
    expect(mapsCustomFields(mappings)).toBe(true);
    for (const raw of ['{"A": "customFields.hatSize"}', '{"A": "favouriteColour"}']) {
      try {
        resolveCustomTargets(parseFieldMappings(raw), customFields);
        throw new Error('expected a refusal');
      } catch (error) {
        expect(isDomainError(error) && error.kind).toBe('invalid_argument');
        expect((error as Error).message).toMatch(/^field_mappings\["A"\]: ".+" is not a contact field\. field_mappings must be/);
      }
    }
    expect(() => parseFieldMappings('{"A": "customFields."}')).toThrow(/field_mappings\["A"\]: "customFields\." is not a contact field/);
  });

  it('does not read custom fields for mappings that name none', () => {
    expect(mapsCustomFields(parseFieldMappings('{"Correo": "email", "X": null}'))).toBe(false);
  });

  it('refuses a plan whose mapping names a custom field the workspace no longer has', () => {
    expect(() => planColumns(['Email', 'Size'], { Size: 'customFields.hatSize' }, customFields)).toThrow(
      /field_mappings maps the column "Size" to "customFields\.hatSize", but this workspace has no such contact custom field/,
    );
  });

  it('puts a row’s non-blank custom cells in its fields, as text, and leaves them out of the early checks', () => {
    const plan = planColumns(['Email', 'Last Name', 'Shoe size', 'Favourite colour'], {}, customFields);
    const fields = rowFields(['a@example.com', 'Lee', ' abc ', '  '], plan);
    expect(fields).toEqual({ email: 'a@example.com', lastName: 'Lee', customFields: { shoeSize: 'abc' } });
    expect(rowProblem(fields)).toBeUndefined();
    expect(rowFields(['b@example.com', 'Lee', '', ''], plan)).toEqual({ email: 'b@example.com', lastName: 'Lee' });
  });
});

describe('field_mappings over named headers', () => {
  const customFields = new CustomFieldCatalog([{ key: 'shoeSize', label: 'Shoe size' }]);

  it('keeps a mapped field for the mapped column even when an earlier header names it', () => {
    const plan = planColumns(
      ['Email', 'Shoe size', 'Correo', 'EU size'],
      { Correo: 'email', 'EU size': 'customFields.shoeSize' },
      customFields,
    );
    expect([...plan.fields.entries()]).toEqual([
      [2, 'email'],
      [3, 'customFields.shoeSize'],
    ]);
    expect(plan.ignoredColumns).toEqual(['Email', 'Shoe size']);
  });
});

describe('whether a header row needs the workspace’s custom fields', () => {
  it('does not for built-in columns and mapped ones; does for an unknown header, a repeated field or a custom mapping', () => {
    expect(needsCustomFields(['First Name', 'Email', 'Phone'], {})).toBe(false);
    expect(needsCustomFields(['Correo', 'Email'], { Correo: 'phone' })).toBe(false);
    expect(needsCustomFields(['Email', 'Shoe size'], {})).toBe(true);
    expect(needsCustomFields(['Email', 'Work Email'], {})).toBe(true);
    expect(needsCustomFields(['Email', 'Size'], { Size: 'customFields.size' })).toBe(true);
  });
});
