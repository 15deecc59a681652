import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppException } from './errors/app.exception';
import { ErrorCode } from './errors/error-code';

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {});
    return [...own.map((message) => (message.startsWith(error.property) ? message.replace(error.property, path) : `${path}: ${message}`)), ...describe(error.children ?? [], path)];
  });
}

/** Strict DTO validation: unknown fields and wrong types are refused, never coerced silently. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    exceptionFactory: (errors) => new AppException(ErrorCode.ValidationFailed, describe(errors).join('; ') || 'invalid request'),
  });
}
