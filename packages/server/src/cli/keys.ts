import { type Command, InvalidArgumentError } from 'commander';
import { HOUR } from '../clock.ts';
import { accountIdArgument, printJson, withServices } from './context.ts';

const MAX_GRACE_HOURS = 24 * 7;

function parseGrace(value: string): number {
  const hours = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || hours > MAX_GRACE_HOURS) {
    throw new InvalidArgumentError(`--grace takes hours from 0 to ${MAX_GRACE_HOURS}.`);
  }
  return hours;
}

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('Manage secret keys.');
  keys
    .command('roll <account-id>')
    .description('Issue a new secret key; the old one keeps working for --grace hours (default 0: it stops now).')
    .option('--grace <hours>', 'hours the previous key stays valid', parseGrace, 0)
    .option('--json', 'print one JSON object and nothing else')
    .action(async (id: string, options: { grace: number; json?: boolean }) => {
      // Imported when the command runs, never for `--help` (decision 0260).
      const [{ rollSecretKey }, { CLI_ACTOR }] = await Promise.all([
        import('../domain/accounts.ts'),
        import('../domain/audit.ts'),
      ]);
      const rolled = await withServices(async (s) => {
        return rollSecretKey(s.repos.accounts, s.clock, accountIdArgument(id), options.grace, { actor: CLI_ACTOR });
      });
      const out = {
        account_id: rolled.account.id,
        secret_key: rolled.secretKey,
        previous_keys_expire_at: new Date(rolled.previousKeysExpireAt).toISOString(),
      };
      if (options.json) return printJson(out);
      console.log(`New secret key for ${out.account_id}: ${out.secret_key}   (shown once)`);
      console.log(`Previous keys stop working at ${out.previous_keys_expire_at}.`);
    });

  keys
    .command('rotate-encryption')
    .description('Make a new card-encryption key; the previous one keeps decrypting for --grace hours (default 24).')
    .option('--grace <hours>', 'hours the previous key still decrypts cards', parseGrace, 24)
    .option('--json', 'print one JSON object and nothing else')
    .action(async (options: { grace: number; json?: boolean }) => {
      const kid = await withServices((s) => s.keyring.rotate(options.grace * HOUR));
      const out = { kid, previous_keys_decrypt_for_hours: options.grace };
      if (options.json) return printJson(out);
      console.log(`New card-encryption key ${kid}; previous keys decrypt for ${options.grace} more hours.`);
    });

  keys
    .command('list-encryption')
    .description('List the card-encryption keys: algorithm, and until when each decrypts (the current key: no end).')
    .option('--json', 'print one JSON array and nothing else')
    .action(async (options: { json?: boolean }) => {
      const { list, now } = await withServices(async (s) => ({ list: await s.keyring.list(), now: s.clock.now() }));
      const out = list.map((k) => ({
        kid: k.kid,
        alg: k.alg,
        created_at: new Date(k.createdAt).toISOString(),
        decrypts_until: k.decryptsUntil === null ? null : new Date(k.decryptsUntil).toISOString(),
        state: k.decryptsUntil === null ? 'current' : k.decryptsUntil > now ? 'decrypting' : 'retired',
      }));
      if (options.json) return printJson(out);
      for (const k of out) {
        const until = k.decrypts_until ? `  decrypts until ${k.decrypts_until}` : '';
        console.log(`${k.kid}  ${k.alg.padEnd(14)}  ${k.state.padEnd(10)}  made ${k.created_at}${until}`);
      }
    });

  keys
    .command('retire-encryption <kid>')
    .description(
      'Stop decrypting cards encrypted to a previous card-encryption key now, before its grace ends (every process within a minute).',
    )
    .option('--json', 'print one JSON object and nothing else')
    .action(async (kid: string, options: { json?: boolean }) => {
      const [{ CurrentCardKey }, { ApiError }] = await Promise.all([
        import('../crypto/card-keyring.ts'),
        import('../domain/errors.ts'),
      ]);
      const retired = await withServices((s) => s.keyring.retire(kid)).catch((error: unknown) => {
        if (error instanceof CurrentCardKey) throw new ApiError('parameter_invalid', error.message, 'kid');
        throw error;
      });
      if (!retired) throw new ApiError('resource_missing', `No card-encryption key ${kid} still decrypts.`, 'kid');
      const out = {
        kid: retired.kid,
        alg: retired.alg,
        retired_at: new Date(retired.decryptsUntil ?? 0).toISOString(),
      };
      if (options.json) return printJson(out);
      console.log(`Card-encryption key ${out.kid} (${out.alg}) is retired: cards encrypted to it are refused.`);
    });

  keys
    .command('rotate-master')
    .description(
      'Reseal every stored secret under a new master key: with OBOLUS_MASTER_KEY, the first of its list; without, a new key in the data directory.',
    )
    .option('--json', 'print one JSON object and nothing else')
    .action(async (options: { json?: boolean }) => {
      const [{ auditEvent, CLI_ACTOR }, { rotateMasterKey }] = await Promise.all([
        import('../domain/audit.ts'),
        import('./master-key.ts'),
      ]);
      const rotation = await withServices(async (s) => {
        const done = await rotateMasterKey(s);
        await s.repos.audit.record(
          auditEvent(s.clock.now(), {
            accountId: null,
            action: 'master_key.rotated',
            actor: CLI_ACTOR,
            detail: { version: done.version },
          }),
        );
        return done;
      });
      const out = {
        master_key_version: rotation.version,
        retired_versions: rotation.retired,
        resealed: {
          card_encryption_keys: rotation.resealed.cardKeys,
          webhook_endpoints: rotation.resealed.webhookEndpoints,
        },
        ...(rotation.file ? { key_file: rotation.file } : {}),
        ...(rotation.retiredFile ? { retired_keys_file: rotation.retiredFile } : {}),
      };
      if (options.json) return printJson(out);
      console.log(
        `Every secret is sealed under master key ${out.master_key_version} (resealed ${out.resealed.card_encryption_keys} card-encryption keys, ${out.resealed.webhook_endpoints} webhook endpoints).`,
      );
      if (rotation.file) console.log(`New key written to ${rotation.file}.`);
      if (rotation.retiredFile) {
        console.log(
          `Previous keys kept in ${rotation.retiredFile} (owner-only): backups taken before now open with them. Store that file apart from the backups.`,
        );
      } else if (rotation.retired.length > 0) {
        console.log(`Remove ${rotation.retired.join(', ')} from OBOLUS_MASTER_KEY on every process.`);
        console.log('Backups taken before now still need the previous key: keep it, apart from them.');
      }
    });
}
