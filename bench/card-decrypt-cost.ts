/**
 * `node bench/card-decrypt-cost.ts [ops]`: what decrypting one card costs, RSA-OAEP-256 against
 * ECDH-ES+A256KW (P-256), each through jose (WebCrypto, on libuv's pool: the path before issue
 * 28) and through the card-decryption threads' own code (crypto/card-jwe.ts, synchronous), then
 * through the pool of threads itself. CPU is the process's (every thread), per operation.
 * Recorded in docs/performance.md; decision 0250.
 */
import { CompactEncrypt, compactDecrypt, importJWK } from 'jose';
import { CardDecryptPool } from '../packages/server/src/crypto/card-decrypt-pool.ts';
import {
  type CardJweAlg,
  decryptCompact,
  JWE_ECDH,
  JWE_RSA,
  privateKeyOf,
} from '../packages/server/src/crypto/card-jwe.ts';
import { newCardKeyPair } from '../packages/server/src/crypto/card-keyring.ts';

const OPS = Number(process.argv[2] ?? 2000);
const CARD = JSON.stringify({ number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123', name: 'Bench' });

interface Row {
  path: string;
  cpuUs: number;
  wallUs: number;
}

async function measure(path: string, op: () => unknown): Promise<Row> {
  for (let i = 0; i < Math.min(200, OPS); i++) await op();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < OPS; i++) await op();
  const wallUs = ((performance.now() - started) * 1000) / OPS;
  const used = process.cpuUsage(cpu);
  const row = { path, cpuUs: (used.user + used.system) / OPS, wallUs };
  process.stderr.write(`  ${path}: ${row.cpuUs.toFixed(0)} µs CPU, ${row.wallUs.toFixed(0)} µs wall per op\n`);
  return row;
}

async function cipherFor(alg: CardJweAlg) {
  const pair = newCardKeyPair(0, alg);
  const jwes = await Promise.all(
    Array.from({ length: 64 }, async () =>
      new CompactEncrypt(new TextEncoder().encode(CARD))
        .setProtectedHeader({ alg, enc: 'A256GCM', kid: pair.kid })
        .encrypt(await importJWK(pair.publicJwk, alg)),
    ),
  );
  return { pair, jwes };
}

process.stderr.write(`card decryption cost, ${OPS} operations each\n`);
const rows: Row[] = [];
const pool = new CardDecryptPool({ threads: 1, queue: 1000 });
for (const alg of [JWE_RSA, JWE_ECDH] as const) {
  const { pair, jwes } = await cipherFor(alg);
  const webKey = await importJWK(pair.privateJwk, alg);
  const nodeKey = privateKeyOf(pair.privateJwk as never);
  let i = 0;
  const next = () => jwes[i++ % jwes.length] as string;
  const options = { keyManagementAlgorithms: [alg], contentEncryptionAlgorithms: ['A256GCM'] };
  rows.push(await measure(`${alg}, jose (WebCrypto, libuv pool)`, () => compactDecrypt(next(), webKey, options)));
  rows.push(await measure(`${alg}, card-jwe.ts (sync)`, () => decryptCompact(next(), nodeKey, alg)));
  const ref = { kid: pair.kid, alg, privateJwk: pair.privateJwk as never };
  rows.push(await measure(`${alg}, card-decryption thread (one at a time)`, () => pool.decrypt(next(), ref)));
}
await pool.close();

console.log('| path | CPU per card (µs) | wall per card (µs) |');
console.log('|---|---:|---:|');
for (const r of rows) console.log(`| ${r.path} | ${r.cpuUs.toFixed(0)} | ${r.wallUs.toFixed(0)} |`);
