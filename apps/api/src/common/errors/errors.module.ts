import { Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AllExceptionsFilter } from './all-exceptions.filter';

/** The one exception filter: the app's global filter, and injectable where an answer is written by hand. */
@Global()
@Module({
  providers: [AllExceptionsFilter, { provide: APP_FILTER, useExisting: AllExceptionsFilter }],
  exports: [AllExceptionsFilter],
})
export class ErrorsModule {}
