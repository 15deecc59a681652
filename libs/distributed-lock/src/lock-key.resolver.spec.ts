import 'reflect-metadata';
import { Body, Param, Query } from '@nestjs/common';
import { createLockKeyResolver, LockKeyResolutionError, LockKeySource } from './lock-key.resolver';

class Orders {
  byParam(@Param('productId') _productId: string) {}
  byBodyField(@Body('note') _note: string, @Body('productId') _productId: number) {}
  byQuery(@Query('productId') _productId: string) {}
  byDto(@Param() _params: object, @Body() _dto: object) {}
  plain(_input: object) {}
}

const resolve = (source: LockKeySource, method: keyof Orders, args: unknown[]) =>
  createLockKeyResolver(source, Orders.prototype, method)(args);

describe('lock key resolution', () => {
  it.each([
    ['a @Param-bound argument', 'byParam', ['42'], 'stock:42'],
    ['a @Body-bound field, by its index not its position', 'byBodyField', ['hello', 7], 'stock:7'],
    ['a @Query-bound argument', 'byQuery', ['9'], 'stock:9'],
    ['a property of the first object argument that has it', 'byDto', [{ id: 'x' }, { productId: 'p1' }], 'stock:p1'],
    ['a property of a provider method input', 'plain', [{ productId: 5n }], 'stock:5'],
    ['a boolean', 'plain', [{ productId: false }], 'stock:false'],
  ] as const)('takes the value from %s', (_case, method, args, expected) => {
    expect(resolve('stock:<productId>', method, [...args])).toBe(expected);
  });

  it('fills several placeholders and several templates (a multi-key lock)', () => {
    const input = { productId: 1, warehouse: 'w2' };
    expect(resolve(['stock:<productId>:<warehouse>', 'user:<productId>'], 'plain', [input])).toEqual([
      'stock:1:w2',
      'user:1',
    ]);
  });

  it('keeps a one-element array a multi-key array', () => {
    expect(resolve(['stock:<productId>'], 'plain', [{ productId: 1 }])).toEqual(['stock:1']);
  });

  it('calls a key function with the arguments', () => {
    expect(resolve((input: { a: string }) => `k:${input.a}`, 'plain', [{ a: 'z' }])).toBe('k:z');
    expect(resolve(() => ['a', 'b'], 'plain', [])).toEqual(['a', 'b']);
  });

  it('accepts a template without placeholders', () => {
    expect(resolve('global-job', 'plain', [])).toBe('global-job');
  });

  it.each([
    ['undefined', undefined, 'resolved to undefined'],
    ['null', null, 'resolved to null'],
    ['an empty string', '', 'resolved to an empty string'],
    ['an object', { id: 1 }, 'resolved to an object'],
    ['an array', [1, 2], 'resolved to an array'],
    ['a function', () => 1, 'resolved to function'],
    ['NaN', Number.NaN, 'resolved to NaN'],
  ])('refuses %s, naming the placeholder and the method', (_case, value, phrase) => {
    const attempt = () => resolve('stock:<productId>', 'byParam', [value]);
    expect(attempt).toThrow(LockKeyResolutionError);
    expect(attempt).toThrow(`Lock key placeholder <productId> of Orders.byParam ${phrase}`);
  });

  it('refuses a placeholder that nothing provides', () => {
    expect(() => resolve('stock:<sku>', 'plain', [{ productId: 1 }, 'sku'])).toThrow(
      "Lock key placeholder <sku> of Orders.plain did not resolve: no @Param/@Body/@Query('sku') argument and no object argument with a 'sku' property",
    );
  });

  it('does not fall back to an object property when the bound argument is missing', () => {
    expect(() => resolve('stock:<productId>', 'byParam', [undefined, { productId: 1 }])).toThrow(
      'resolved to undefined',
    );
  });

  it.each([[undefined], [''], [['a', '']], [[]], [{}]])('refuses a key function returning %p', (returned) => {
    expect(() => resolve(() => returned as string, 'plain', [])).toThrow(
      /The lock key function of Orders\.plain returned/,
    );
  });

  it.each(['stock:<productId', 'stock:productId>', 'stock:<>', 'stock:<a-b>', ''])(
    'rejects the malformed template %p at decoration time',
    (template) => {
      expect(() => createLockKeyResolver(template, Orders.prototype, 'plain')).toThrow();
    },
  );

  it('escapes values so that a value cannot add a key segment or a hash tag', () => {
    expect(resolve('stock:<productId>', 'plain', [{ productId: '1:2' }])).toBe('stock:1%3A2');
    expect(resolve('stock:<productId>', 'plain', [{ productId: '{x}*' }])).toBe('stock:%7Bx%7D%2A');
  });
});
