import { isDomainError } from '@crm/observability';
import { parseFieldMappings, planColumns } from './column-plan';
import { recogniseHeader } from './contact-fields';
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
