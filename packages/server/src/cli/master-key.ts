import { appendFileSync, chmodSync } from 'node:fs';
import { type MasterKey, masterKeyOf, newMasterKeyText, SecretBox, writeKeyFile } from '../crypto/master-key.ts';
import type { Services } from '../services.ts';
import { type ResealReport, resealSecrets } from '../store/repos/sealed-secrets.ts';

export interface MasterRotation {
  /** The master key every secret is sealed under now. */
  version: string;
  /** Keys no longer needed by the database (older backups still need them). */
  retired: string[];
  resealed: ResealReport;
  /** The key file rewritten, for the embedded default. */
  file?: string;
  /** Where the retired keys of the file were appended (owner-only). */
  retiredFile?: string;
}

/**
 * `obolus keys rotate-master` (decision 0070). With OBOLUS_MASTER_KEY the operator has put the
 * new key first in the list; every secret is resealed under it. With the generated key file a
 * new key is made: the file lists it first (running processes seal with it from then on, and
 * can still open the old), every secret is resealed, and then the file keeps the new key only.
 */
export async function rotateMasterKey(services: Services): Promise<MasterRotation> {
  const { secrets, database } = services;
  const file = secrets.file;
  const before = [...secrets.keys];
  if (!file) {
    const resealed = await resealSecrets(database.db, secrets, false);
    return { version: secrets.current.version, retired: before.slice(1).map((k) => k.version), resealed };
  }
  const fresh = masterKeyOf(newMasterKeyText(), 'generated key');
  const transition = new SecretBox([fresh, ...before]);
  writeKeyFile(file, [fresh, ...before]);
  const first = await resealSecrets(database.db, transition, false);
  // Backups taken before now still need the old keys: kept beside, never deleted (issue 25 item 13).
  const retiredFile = keepRetiredKeys(file, before);
  writeKeyFile(file, [fresh]);
  // A process that sealed under the old key just before it read the new file: reseal that too.
  const second = await resealSecrets(database.db, transition, false);
  return {
    version: fresh.version,
    retired: before.map((k) => k.version),
    resealed: {
      cardKeys: first.cardKeys + second.cardKeys,
      webhookEndpoints: first.webhookEndpoints + second.webhookEndpoints,
    },
    file,
    retiredFile,
  };
}

/**
 * Appends retired master keys to `<key file>.retired` (owner-only), each under a comment with
 * its version and when it was retired: what opens a backup taken before the rotation
 * (OBOLUS_MASTER_KEY=<that key>, or put it back in the key file).
 */
export function keepRetiredKeys(file: string, keys: MasterKey[]): string {
  const retired = `${file}.retired`;
  const when = new Date().toISOString();
  const lines = keys.map((k) => `# ${k.version}, retired ${when}\n${k.key.toString('base64')}\n`).join('');
  appendFileSync(retired, lines, { mode: 0o600 });
  chmodSync(retired, 0o600);
  return retired;
}
