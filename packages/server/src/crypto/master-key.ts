import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Secrets at rest (decision 0070): card-encryption private keys and webhook signing secrets are
 * sealed with AES-256-GCM under a master key that never enters the database. The row's id is
 * the associated data, so a sealed value copied to another row does not open. Every sealed
 * value is stored with the version (fingerprint) of the key that sealed it.
 */
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const MASTER_KEY_FILE = 'master.key';

export interface MasterKey {
  /** mk_ + 12 hex of SHA-256 of the key: names the key without revealing it. */
  version: string;
  key: Buffer;
}

export interface Sealed {
  sealed: string;
  version: string;
}

export function masterKeyOf(base64: string, where: string): MasterKey {
  const text = base64.trim();
  const key = Buffer.from(text, 'base64');
  if (key.length !== KEY_BYTES || key.toString('base64') !== text) {
    throw new Error(`${where} must be ${KEY_BYTES} random bytes in base64 (e.g. openssl rand -base64 32)`);
  }
  return { version: `mk_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`, key };
}

export const newMasterKeyText = () => randomBytes(KEY_BYTES).toString('base64');

/** The keys of OBOLUS_MASTER_KEY: comma-separated, the first seals, the others only open (a rotation). */
export function parseMasterKeys(text: string, where = 'OBOLUS_MASTER_KEY'): MasterKey[] {
  return text
    .split(/[,\n]/)
    .filter((part) => part.trim() !== '')
    .map((part) => masterKeyOf(part, where));
}

/** Where the embedded SQLite default keeps its generated key: beside the database file. */
export const masterKeyFileFor = (sqlitePath: string) => join(dirname(resolve(sqlitePath)), MASTER_KEY_FILE);

/** Reads the key file, creating it (owner-only) with a fresh key when there is none yet. */
export function readOrCreateKeyFile(file: string): MasterKey[] {
  // On a first start the data directory may not exist yet: the database is opened after the key.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${newMasterKeyText()}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
  return parseMasterKeys(readFileSync(file, 'utf8'), file);
}

export function writeKeyFile(file: string, keys: MasterKey[]): void {
  const temp = `${file}.tmp`;
  writeFileSync(temp, keys.map((k) => `${k.key.toString('base64')}\n`).join(''), { mode: 0o600 });
  // Renamed over the old file so that a reader sees the old or the new list, never half of one.
  renameSync(temp, file);
}

/**
 * Seals and opens secrets. Backed by a key file, it rereads the file when it changes, so a
 * running process follows `obolus keys rotate-master`.
 */
export class SecretBox {
  #keys: MasterKey[];
  readonly #file: string | undefined;
  #fileStamp = '';

  constructor(keys: MasterKey[], file?: string) {
    if (keys.length === 0) throw new Error('a master key is required');
    this.#keys = keys;
    this.#file = file;
    if (file) this.#fileStamp = stampOf(file);
  }

  /** The key file this box follows; undefined when the keys come from OBOLUS_MASTER_KEY. */
  get file(): string | undefined {
    return this.#file;
  }

  get current(): MasterKey {
    this.#followFile();
    return this.#keys[0] as MasterKey;
  }

  get keys(): readonly MasterKey[] {
    this.#followFile();
    return this.#keys;
  }

  seal(plaintext: string, associated: string): Sealed {
    const { key, version } = this.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(associated));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { sealed: Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url'), version };
  }

  open(sealed: string, associated: string, version: string): string {
    const master = this.keys.find((k) => k.version === version);
    if (!master) throw new Error(`secret sealed with master key ${version}, which this process does not have`);
    const bytes = Buffer.from(sealed, 'base64url');
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', master.key, iv).setAAD(Buffer.from(associated)).setAuthTag(tag);
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }

  #followFile(): void {
    if (!this.#file) return;
    const stamp = stampOf(this.#file);
    if (stamp === this.#fileStamp) return;
    this.#keys = parseMasterKeys(readFileSync(this.#file, 'utf8'), this.#file);
    this.#fileStamp = stamp;
  }
}

function stampOf(file: string): string {
  const stat = statSync(file);
  return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
}

/**
 * The master keys of this process: OBOLUS_MASTER_KEY when set; otherwise, for the embedded
 * SQLite default only, a key file generated beside the database on first start.
 */
export function openSecretBox(
  masterKey: string | undefined,
  databaseUrl: string,
  engine: 'sqlite' | 'postgres',
): SecretBox {
  if (masterKey) return new SecretBox(parseMasterKeys(masterKey));
  if (engine === 'postgres') {
    throw new Error(
      'OBOLUS_MASTER_KEY is required on PostgreSQL: 32 random bytes in base64 (openssl rand -base64 32), the same on every process; keep a copy outside the database backups',
    );
  }
  const file = masterKeyFileFor(databaseUrl);
  return new SecretBox(readOrCreateKeyFile(file), file);
}
