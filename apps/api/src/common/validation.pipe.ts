import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppException } from './errors/app.exception';
import { ErrorCode } from './errors/error-code';

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {});
    return [...own.map((message) => (message.startsWith(error.property) ? message.replace(error.property, path) : `${path}: ${message}`)), ...describe(error.children ?? [], path)];
  });
}

/**
 * Nest reads a JSON `null` body as `{}`, so `null` would pass as "all defaults"; a body that is
 * present must be an object.
 */
class StrictValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && (value === null || (value !== undefined && (typeof value !== 'object' || Array.isArray(value))))) {
      throw new AppException(ErrorCode.ValidationFailed, 'the request body must be a JSON object');
    }
    return super.transform(value, metadata);
  }
}

/** Strict DTO validation: unknown fields and wrong types are refused, never coerced silently. */
export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    exceptionFactory: (errors) => new AppException(ErrorCode.ValidationFailed, describe(errors).join('; ') || 'invalid request'),
  });
}
