/**
 * Registered for every cross suite (jest.config.js): a suite fails when any answer it received
 * disagrees with the OpenAPI document, listing each disagreement.
 */
import { describeViolations, takeViolations } from './openapi-conformance';

afterAll(() => {
  const { violations, checked, unchecked } = takeViolations();
  if (process.env.OPENAPI_CONFORMANCE_SUMMARY)
    console.log(`OpenAPI conformance: ${checked} answer(s) checked, ${violations.length} violation(s)`);
  if (unchecked > 0) throw new Error(`${unchecked} answer(s) could not be checked: the gateway never served /api/openapi.json`);
  if (violations.length > 0)
    throw new Error(`${violations.length} answer(s) disagree with the OpenAPI document:\n${describeViolations(violations)}`);
});
