import { Obolus } from './index.ts';

/**
 * The file Obolus serves at /js/v1/obolus.js: the loader as an ES module, which also sets
 * `window.Obolus` so a page that pins it with <script type="module" integrity=…> can use
 * it from its own scripts without an import map.
 */
export * from './index.ts';

(globalThis as { Obolus?: typeof Obolus }).Obolus = Obolus;
