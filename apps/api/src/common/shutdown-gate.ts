import { Injectable, OnModuleDestroy } from '@nestjs/common';

/** Flips when the app starts shutting down (the first hook Nest calls on close). */
@Injectable()
export class ShutdownState implements OnModuleDestroy {
  closing = false;

  onModuleDestroy(): void {
    this.closing = true;
  }
}
