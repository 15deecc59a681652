import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AuthModule } from './auth/auth.module';
import { ErrorsModule } from './common/errors/errors.module';
import { ShutdownState } from './common/shutdown-gate';
import { LockingModule } from './common/locking/locking.module';
import { RedisModule } from './common/redis/redis.module';
import { AppConfigModule } from './config/app-config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { InventoryModule } from './inventory/inventory.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { OrdersModule } from './orders/orders.module';
import { WaitingRoomModule } from './waiting-room/waiting-room.module';
import { SaleAuditModule } from './sale-audit/sale-audit.module';
import { PaymentsModule } from './payments/payments.module';

@Module({
  imports: [
    AppConfigModule,
    ErrorsModule,
    LoggingModule,
    DatabaseModule,
    RedisModule,
    LockingModule,
    ScheduleModule.forRoot(),
    AuthModule,
    HealthModule,
    MetricsModule,
    InventoryModule,
    OrdersModule,
    WaitingRoomModule,
    SaleAuditModule,
    PaymentsModule,
  ],
  providers: [ShutdownState],
})
export class AppModule {}
