// Vitest setup file (vitest.config.ts): after each test file, no child process it started lives on.
import { afterAll } from 'vitest';
import { killLeftChildren } from './children.ts';

afterAll(() => {
  const left = killLeftChildren();
  if (left > 0) console.warn(`${left} child process(es) still running at the end of this file were killed`);
});
