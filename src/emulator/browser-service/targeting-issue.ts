/**
 * One problem `POST /configurations/validate` reports, shared by every targeting check: the
 * client's wire `ValidationIssue`, with the suggestion the emulator always words (or `null`).
 */
import type { z } from 'zod';
import type { ValidationIssueSchema } from '../../browser-api/schemas/configurations.js';

export type Issue = z.input<typeof ValidationIssueSchema> & { suggestion: string | null };

/** One issue, as every targeting check builds it. */
export const issue = (
  code: string,
  field: string,
  message: string,
  suggestion: string | null,
): Issue => ({ code, field, message, suggestion });
