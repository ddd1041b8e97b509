/**
 * Child process of the self-test: runs the variants its parent sends, one at a time, and sends back each run.
 * One process runs many variants, so the kit's modules (spec, profile, registry) are loaded once per process.
 */
import type { PlannedVariant } from './plan.js';
import { runVariant, type VariantSettings } from './variant.js';

/** A request from the parent. */
export interface WorkerRequest {
  variant: PlannedVariant;
  settings: VariantSettings;
}

process.on('message', (message: WorkerRequest) => {
  void runVariant(message.variant, message.settings).then((result) => process.send?.(result));
});
process.on('disconnect', () => process.exit(0));
