/** What a step came to: an outcome for the run log, or a failure that ends the run. */
export interface StepOutcome {
  status: 'completed' | 'skipped';
  detail: string;
}

/** A step that cannot succeed as configured or for this record: the enrollment ends failed with this reason. */
export class StepFailure extends Error {
  override readonly name = 'StepFailure';
}
