/** Field readers for JSON bodies: each wrong or missing field is a 400 naming the field. */
import { badRequest } from '../server/http-error.js';

export type JsonObject = Record<string, unknown>;

/** The body as an object; an absent body is `{}`. */
export function objectBody(body: unknown): JsonObject {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object');
  }
  return body as JsonObject;
}

export function requiredString(body: JsonObject, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest(`${field} is required`);
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  return value;
}

export function optionalString(body: JsonObject, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  return value;
}

export function optionalBoolean(body: JsonObject, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw badRequest(`${field} must be a boolean`);
  return value;
}

export function requiredNumber(body: JsonObject, field: string): number {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest(`${field} is required`);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw badRequest(`${field} must be a number`);
  }
  return value;
}
