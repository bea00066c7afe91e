/**
 * The contact fields an import can fill, and how a CSV header names them: the schema's own names
 * and the spellings people's files use (`First Name`, `first_name`, `E-mail`, `Email Address`, ...).
 */

export const IMPORT_FIELDS = ['firstName', 'lastName', 'email', 'phone', 'title', 'stage', 'notes', 'tags', 'externalId'] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** Spellings after normalising (lower case, letters and digits only). */
const SPELLINGS: Record<ImportField, string[]> = {
  firstName: ['firstname', 'first', 'givenname', 'forename', 'fname', 'prenom', 'vorname'],
  lastName: ['lastname', 'last', 'surname', 'familyname', 'lname', 'nom', 'nachname'],
  email: ['email', 'emailaddress', 'mail', 'emailid', 'primaryemail', 'workemail', 'businessemail', 'courriel'],
  phone: ['phone', 'phonenumber', 'telephone', 'tel', 'mobile', 'mobilephone', 'cell', 'cellphone', 'workphone', 'businessphone'],
  title: ['title', 'jobtitle', 'position', 'role'],
  stage: ['stage', 'contactstage', 'lifecyclestage', 'status'],
  notes: ['notes', 'note', 'comments', 'comment', 'description'],
  tags: ['tags', 'tag', 'labels', 'label'],
  // `External ID`, `externalId`, `external_id`.
  externalId: ['externalid'],
};

const BY_SPELLING = new Map<string, ImportField>();
for (const field of IMPORT_FIELDS) for (const spelling of SPELLINGS[field]) BY_SPELLING.set(spelling, field);

/** `First Name`, `first_name`, `FIRST-NAME`, ` firstName ` all become `firstname`. */
export function normaliseHeader(header: string): string {
  return header
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** The field a header names, or undefined when it names none. */
export function recogniseHeader(header: string): ImportField | undefined {
  return BY_SPELLING.get(normaliseHeader(header));
}
