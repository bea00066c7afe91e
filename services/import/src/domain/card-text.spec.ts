import { cardFields, documentContacts, emailIn } from './card-text';

describe('contact fields pulled out of text', () => {
  it('reads a business card: name, title, company, email and phone by their looks', () => {
    const text = [
      'ANALYTICAL ENGINES LTD',
      '',
      'Ada Lovelace',
      'Chief Engineer',
      'ada@example.com',
      '+44 20 7946 0018',
      'www.example.com',
    ].join('\n');
    expect(cardFields(text)).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      title: 'Chief Engineer',
      email: 'ada@example.com',
      phone: '+44 20 7946 0018',
      notes: 'Company: ANALYTICAL ENGINES LTD',
    });
  });

  it('believes labelled lines over looks', () => {
    const text = [
      'Name: Grace Brewster Hopper',
      'Position: Rear Admiral',
      'Company: US Navy',
      'E-mail: grace@example.com',
      'Tel. (202) 555-0143',
      'Fax: 202 555 0199',
    ].join('\n');
    expect(cardFields(text)).toEqual({
      firstName: 'Grace',
      lastName: 'Brewster Hopper',
      title: 'Rear Admiral',
      email: 'grace@example.com',
      phone: '(202) 555-0143',
      notes: 'Company: US Navy',
    });
  });

  it('leaves out what it cannot find, so the row reports the missing email', () => {
    expect(cardFields('Thank you for your order\n\n12 items')).toEqual({});
  });

  it('does not take a short number or a date for a phone', () => {
    expect(cardFields('Ada Lovelace\nada@example.com\nRoom 42\n2024')).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
    });
  });

  it('reads a contact list one line per contact, columns split at tabs', () => {
    const text = [
      'Attendees',
      'Grace Hopper\tgrace@example.com\t+1 202 555 0143',
      'Alan Turing\talan@example.com\tBletchley Park Ltd',
    ].join('\n');
    expect(documentContacts(text)).toEqual([
      { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', phone: '+1 202 555 0143' },
      { firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com', notes: 'Company: Bletchley Park Ltd' },
    ]);
  });

  it('reads a signature page with one email as one contact', () => {
    const text = ['Kind regards,', 'Katherine Johnson', 'Research Mathematician', 'katherine@example.com'].join('\n');
    expect(documentContacts(text)).toEqual([
      { firstName: 'Katherine', lastName: 'Johnson', title: 'Research Mathematician', email: 'katherine@example.com' },
    ]);
  });
});

describe('the email of a line', () => {
  it('is the first address, as the pattern found it', () => {
    expect(emailIn('mail: (ada.lovelace+cards@mail.example.co.uk), bob@example.com')).toBe('ada.lovelace+cards@mail.example.co.uk');
    expect(emailIn('@ x@y a@b.c grace@example.com')).toBe('grace@example.com');
    expect(emailIn('no address here')).toBeUndefined();
  });

  // The unbounded pattern backtracked quadratically: 20,000 characters without `@` took 1.9 s, and
  // each of these 1 MB lines minutes; read linearly they finish inside jest's 5 s timeout.
  it.each([
    ['without @', 'a'.repeat(1024 * 1024)],
    ['ending in @', `${'a'.repeat(1024 * 1024)}@`],
    ['of dotted labels', `x@${'a.'.repeat(512 * 1024)}`],
  ])('reads a 1 MB line %s', (_label, line) => {
    expect(documentContacts(line)).toEqual([{}]);
  });
});
