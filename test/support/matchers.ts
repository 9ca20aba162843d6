/**
 * vitest's asymmetric matchers, typed `unknown` instead of vitest's `any`: the same matchers, so an
 * expected object that holds one is typed (the linter's no-unsafe-assignment) and reads as before.
 */
import { expect } from 'vitest';

export const stringMatching = (pattern: string | RegExp): unknown => expect.stringMatching(pattern);
export const stringContaining = (text: string): unknown => expect.stringContaining(text);
export const arrayContaining = (items: unknown[]): unknown => expect.arrayContaining(items);
/** `expect.any(String)`: any value made by that constructor (or of that primitive type). */
export const anyOf = (type: unknown): unknown => expect.any(type);
