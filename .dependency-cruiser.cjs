/**
 * The layer rule (docs/decisions/0282-the-layer-rule.md), checked by `npm run lint`.
 * Type-only imports count: a cycle of types is still a cycle a reader has to untangle.
 */
const SRC = '^packages/server/src/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycles, type-only imports included.',
      from: { path: '^packages/' },
      to: { circular: true },
    },
    {
      name: 'domain-knows-no-adapter',
      severity: 'error',
      comment: 'The domain imports no http, store, connectors, workers or cli: it owns ports the adapters implement.',
      from: { path: `${SRC}domain/` },
      to: { path: `${SRC}(http|store|connectors|workers|cli|dev)/` },
    },
    {
      name: 'nothing-below-http-imports-http',
      severity: 'error',
      comment: 'http sits above the domain, the store, the connectors, crypto and the workers.',
      from: { path: `${SRC}(domain|store|connectors|crypto|workers)/` },
      to: { path: `${SRC}http/` },
    },
    {
      name: 'crypto-knows-no-domain',
      severity: 'error',
      comment: 'crypto/ is mechanism: keys, ciphers, hashing; the rules that use it live in the domain.',
      from: { path: `${SRC}crypto/` },
      to: { path: `${SRC}domain/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
