import type { Request, Response } from 'express';
import { DomainError } from '@crm/observability';
import { answeredNotModified, etagOf, expectedVersion } from './record-etag';

const request = (headers: Record<string, string>) => ({ get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

function response() {
  const sent = { status: 200, ended: false, headers: {} as Record<string, string> };
  const res = {
    setHeader: (name: string, value: string) => void (sent.headers[name] = value),
    status: (code: number) => {
      sent.status = code;
      return { end: () => void (sent.ended = true) };
    },
  } as unknown as Response;
  return { res, sent };
}

const kindOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof DomainError ? error.kind : 'other';
  }
};

describe('record ETags', () => {
  it('renders the version as a strong tag, 0 for records without one', () => {
    expect(etagOf({ version: 7 })).toBe('"7"');
    expect(etagOf({})).toBe('"0"');
  });

  it('reads If-Match: absent or * is unconditional, a strong tag is its version', () => {
    expect(expectedVersion(request({}))).toBeUndefined();
    expect(expectedVersion(request({ 'if-match': '*' }))).toBeUndefined();
    expect(expectedVersion(request({ 'if-match': '"12"' }))).toBe(12);
    expect(expectedVersion(request({ 'if-match': ' "3" ' }))).toBe(3);
  });

  it('makes a weak tag or a tag that is no version never match (-1, so 412)', () => {
    expect(expectedVersion(request({ 'if-match': 'W/"3"' }))).toBe(-1);
    expect(expectedVersion(request({ 'if-match': '"abc"' }))).toBe(-1);
  });

  it('refuses a malformed If-Match, or several tags, with 400', () => {
    expect(kindOf(() => expectedVersion(request({ 'if-match': '3' })))).toBe('invalid_argument');
    expect(kindOf(() => expectedVersion(request({ 'if-match': '"3' })))).toBe('invalid_argument');
    expect(kindOf(() => expectedVersion(request({ 'if-match': '"3", "4"' })))).toBe('invalid_argument');
  });

  it('answers 304 when If-None-Match names the current tag, weakly compared', () => {
    for (const header of ['"4"', 'W/"4"', '"1", "4"', '*']) {
      const { res, sent } = response();
      expect(answeredNotModified(request({ 'if-none-match': header }), res, { version: 4 })).toBe(true);
      expect(sent).toMatchObject({ status: 304, ended: true, headers: { ETag: '"4"' } });
    }
  });

  it('lets the read through with its ETag when the tag is stale, absent or malformed', () => {
    for (const headers of [{ 'if-none-match': '"3"' }, {}, { 'if-none-match': 'junk' }] as Record<string, string>[]) {
      const { res, sent } = response();
      expect(answeredNotModified(request(headers), res, { version: 4 })).toBe(false);
      expect(sent).toMatchObject({ status: 200, ended: false, headers: { ETag: '"4"' } });
    }
  });
});
