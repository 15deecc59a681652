import { ConfigurableModuleBuilder } from '@nestjs/common';
import { DISTRIBUTED_LOCK_MODULE_OPTIONS } from './distributed-lock.constants';
import { DistributedLockModuleOptions } from './distributed-lock-options.interface';

export const {
  ConfigurableModuleClass: ConfigurableDistributedLockModule,
  OPTIONS_TYPE: DISTRIBUTED_LOCK_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: DISTRIBUTED_LOCK_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<DistributedLockModuleOptions>({ optionsInjectionToken: DISTRIBUTED_LOCK_MODULE_OPTIONS })
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
