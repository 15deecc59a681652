import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { PurchaseBatchFunction1763700100000 } from './1763700100000-purchase-batch-function';
import { SegmentedStock1763700200000 } from './1763700200000-segmented-stock';
import { RowLockOrder1763700300000 } from './1763700300000-row-lock-order';
import { SetBasedPurchaseBatch1763700400000 } from './1763700400000-set-based-purchase-batch';
import { PurchaseAttempts1763700500000 } from './1763700500000-purchase-attempts';
import { PaymentEvents1763700600000 } from './1763700600000-payment-events';
import { WaitingRoom1763700700000 } from './1763700700000-waiting-room';
import { ConditionalStockUpdate1763700800000 } from './1763700800000-conditional-stock-update';
import { SaleSeed1763700910000 } from './1763700910000-sale-seed';
import { PurchaseIdIndex1763700920000 } from './1763700920000-purchase-id-index';
import { SaleAudit1763700930000 } from './1763700930000-sale-audit';

/** Listed explicitly (not globbed) so the bundled app and the CLI run the same migrations. */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  PurchaseBatchFunction1763700100000,
  SegmentedStock1763700200000,
  RowLockOrder1763700300000,
  SetBasedPurchaseBatch1763700400000,
  PurchaseAttempts1763700500000,
  PaymentEvents1763700600000,
  WaitingRoom1763700700000,
  ConditionalStockUpdate1763700800000,
  SaleSeed1763700910000,
  PurchaseIdIndex1763700920000,
  SaleAudit1763700930000,
];
