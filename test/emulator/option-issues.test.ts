import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { optionIssues } from '../../src/emulator/option-issues.js';

const Schema = z.strictObject({
  port: z.number().int().min(0).optional(),
  delay: z
    .union([z.enum(['fast']), z.strictObject({ minMs: z.number(), maxMs: z.number() })])
    .optional(),
  nested: z.strictObject({ inner: z.strictObject({ deep: z.boolean().optional() }) }).optional(),
});

const issuesOf = (input: unknown) => {
  const result = Schema.safeParse(input, { reportInput: true });
  if (result.success) throw new Error('accepted');
  return optionIssues(Schema, result.error);
};

describe('optionIssues', () => {
  it('names every unknown key by its whole path with the keys the schema has there', () => {
    expect(issuesOf({ nested: { inner: { deap: true } }, colour: 'red' })).toEqual([
      { path: 'colour', message: 'is not an option (known: port, delay, nested)' },
      { path: 'nested.inner.deap', message: 'is not an option of nested.inner (known: deep)' },
    ]);
  });

  it('reads a union through the branch the value chose, the misspelt key first', () => {
    expect(issuesOf({ delay: { min: 1, maxMs: 2 } })).toEqual([
      { path: 'delay.min', message: 'is not an option of delay (known: minMs, maxMs)' },
      { path: 'delay.minMs', message: 'is required' },
    ]);
  });

  it("words the other rules in the client's words, naming what was sent", () => {
    expect(issuesOf({ port: -1 })).toEqual([{ path: 'port', message: 'must be >= 0 (got -1)' }]);
  });
});
