/** A row that could not become a contact, as the job and the synchronous import list it. */
export const ROW_ERROR_ITEM = {
  type: 'object',
  required: ['row', 'message'],
  properties: { row: { type: 'integer' }, message: { type: 'string' } },
  additionalProperties: false,
};
/** A row whose email a contact (or an earlier row) already has. */
export const DUPLICATE_ITEM = {
  type: 'object',
  required: ['row', 'email', 'existingContactId'],
  additionalProperties: false,
  properties: {
    row: { type: 'integer' },
    email: { type: 'string' },
    existingContactId: { type: ['string', 'null'], description: 'null when the earlier row is in the same file' },
  },
};
