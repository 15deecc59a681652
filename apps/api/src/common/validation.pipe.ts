import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppException } from './errors/app.exception';
import { ErrorCode } from './errors/error-code';

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {});
    return [
      ...own.map((message) =>
        message.startsWith(error.property) ? message.replace(error.property, path) : `${path}: ${message}`,
      ),
      ...describe(error.children ?? [], path),
    ];
  });
}

// No DTO of ours nests deeper than 3; class-transformer and the validator recurse per level and
// overflow the stack at a few thousand, so deeper input is refused before they see it.
export const MAX_BODY_DEPTH = 32;

/** Whether `value` nests objects or arrays deeper than `limit` levels (iterative: no recursion to overflow). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Nest reads a JSON `null` body as `{}`, so `null` would pass as "all defaults"; a body that is
 * present must be an object, and not a deeply nested one.
 */
class StrictValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (
      metadata.type === 'body' &&
      (value === null || (value !== undefined && (typeof value !== 'object' || Array.isArray(value))))
    ) {
      throw new AppException(ErrorCode.ValidationFailed, 'the request body must be a JSON object');
    }
    if (metadata.type === 'body' && nestsDeeperThan(value, MAX_BODY_DEPTH)) {
      throw new AppException(ErrorCode.ValidationFailed, `the request body nests deeper than ${MAX_BODY_DEPTH} levels`);
    }
    return super.transform(value, metadata);
  }
}

/**
 * Strict DTO validation: unknown fields and wrong types are refused, never coerced silently.
 * `ignoreUnknownFields` (with the DTO as `expectedType`): unknown fields are dropped instead, for
 * bodies whose sender adds fields of its own (the payment provider's events).
 */
export function createValidationPipe(
  options: { ignoreUnknownFields?: boolean; expectedType?: new () => object } = {},
): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: !options.ignoreUnknownFields,
    expectedType: options.expectedType,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    exceptionFactory: (errors) =>
      new AppException(ErrorCode.ValidationFailed, describe(errors).join('; ') || 'invalid request'),
  });
}
