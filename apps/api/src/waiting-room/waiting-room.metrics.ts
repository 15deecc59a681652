import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { registeredCounter as counter, registeredGauge } from '../metrics/registered-metrics';

const gauge = (name: string, help: string): Gauge<'product_id'> => registeredGauge(name, help, ['product_id']);

/**
 * The waiting room's figures. Polls and joins are counted by every instance; the queue's gauges
 * are set by whichever instance ran the admission step last (read them with max by product_id).
 */
@Injectable()
export class WaitingRoomMetrics {
  readonly polls = counter('waiting_room_polls_total', 'Waiting-room polls answered, by ticket state', ['state']);
  readonly joins = counter(
    'waiting_room_joins_total',
    'Waiting-room joins, by outcome (new, existing, sold_out, refused, work_required, work_invalid, address_limit, claim_required)',
    ['outcome'],
  );
  readonly admissions = counter('waiting_room_admissions_total', 'Tickets admitted to purchase');
  readonly expired = counter(
    'waiting_room_expired_admissions_total',
    'Admissions that expired unused and gave their place back',
  );
  readonly receipts = counter('waiting_room_purchases_total', 'Purchases made with an admission (tickets now BOUGHT)');
  readonly waiting = gauge('waiting_room_queue_length', 'Tickets waiting to be admitted');
  readonly outstanding = gauge('waiting_room_admitted', 'Outstanding admissions: admitted, neither bought nor expired');
}
