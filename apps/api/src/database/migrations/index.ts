import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { PurchaseBatchFunction1763700100000 } from './1763700100000-purchase-batch-function';

/** Listed explicitly (not globbed) so the bundled app and the CLI run the same migrations. */
export const MIGRATIONS = [InitialSchema1763700000000, PurchaseBatchFunction1763700100000];
