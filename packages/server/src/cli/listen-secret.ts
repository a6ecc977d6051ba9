import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { newSigningSecret } from '../domain/webhooks/signing.ts';
import type { AccountId } from '../ids.ts';

/**
 * Where `obolus listen` keeps its signing secrets: `$OBOLUS_CONFIG_DIR`, else
 * `$XDG_CONFIG_HOME/obolus`, else `~/.config/obolus`.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OBOLUS_CONFIG_DIR) return env.OBOLUS_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'obolus');
}

/**
 * One signing secret per machine and account, like the Stripe CLI: the receiver is
 * configured once, not at every session. The account is named by a digest of the API
 * address and its account id, so the secret outlives a roll of the secret key and the file
 * holds neither. A secret kept by an older version under the digest of the address and the
 * key is taken over.
 */
export function listenSecret(apiUrl: string, accountId: AccountId, apiKey: string, dir = configDir()): string {
  const file = join(dir, 'listen-secrets.json');
  const digest = (of: string) =>
    createHash('sha256')
      .update(`${apiUrl.replace(/\/+$/, '')}\n${of}`)
      .digest('hex');
  const account = digest(accountId);
  const secrets = readSecrets(file);
  const known = secrets[account];
  if (typeof known === 'string' && known.startsWith('whsec_')) return known;
  const byKey = secrets[digest(apiKey)];
  secrets[account] = typeof byKey === 'string' && byKey.startsWith('whsec_') ? byKey : newSigningSecret();
  delete secrets[digest(apiKey)];
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets[account];
}

function readSecrets(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, string>;
  } catch {}
  throw new Error(`${file} is not a JSON object; fix or delete it (its secrets will then be new).`);
}
