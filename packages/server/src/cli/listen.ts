import { type Command, InvalidArgumentError } from 'commander';
import { EVENT_TYPES } from '../domain/events.ts';
import type { AccountId } from '../ids.ts';
import { accountIdArgument } from './context.ts';
import type { EventFollower, FetchEvents, ListedEvent } from './event-follower.ts';

interface ListenOptions {
  forwardTo?: string;
  events?: string[];
  apiKey?: string;
  apiUrl: string;
  interval: number;
  printSecret?: boolean;
  live?: boolean;
}

function parseEvents(value: string): string[] {
  const types = value.split(',').map((t) => t.trim());
  const unknown = types.find((t) => t !== '*' && !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined)
    throw new InvalidArgumentError(`unknown event type '${unknown}'; one of: ${EVENT_TYPES.join(', ')}.`);
  return types;
}

function parseUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new InvalidArgumentError('give an http:// or https:// URL, e.g. http://localhost:3000/webhooks.');
  }
  return value;
}

function parseInterval(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 100 || ms > 60_000)
    throw new InvalidArgumentError('--interval takes 100 to 60000 ms.');
  return ms;
}

export function registerListen(program: Command): void {
  program
    .command('listen')
    .description("Forward your account's events to a local URL as signed webhooks, for development.")
    .option('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/webhooks', parseUrl)
    .option('--events <types>', 'comma-separated event types to forward (default: all)', parseEvents)
    .option('--api-key <sk>', 'secret key of the account (default: $OBOLUS_SECRET_KEY)')
    .option('--api-url <url>', 'address of the Obolus API', parseUrl, 'http://localhost:4242')
    .option('--interval <ms>', 'how often to poll for new events', parseInterval, 1000)
    .option('--live', 'forward live events instead of sandbox ones')
    .option('--print-secret', 'print the signing secret of this machine and account, and exit')
    .action(async (options: ListenOptions, command: Command) => {
      const forwardTo = options.forwardTo;
      if (!forwardTo && !options.printSecret)
        command.error("error: required option '--forward-to <url>' not specified");
      const apiKey = options.apiKey ?? process.env.OBOLUS_SECRET_KEY;
      if (!apiKey) command.error('error: give --api-key sk_… (or set OBOLUS_SECRET_KEY).');
      // A refused key stops here, before a secret is kept for it.
      const account = await accountOfKey(options.apiUrl, apiKey);
      // Signing (and its library) loads when the command runs, never for `--help` (decision 0260).
      const { listenSecret } = await import('./listen-secret.ts');
      if (options.printSecret || !forwardTo) return console.log(listenSecret(options.apiUrl, account, apiKey));
      await listen({ ...options, apiKey, forwardTo }, account);
    });
}

/** The id of the key's account (GET /api/v1/account): it stays when the key is rolled. */
async function accountOfKey(apiUrl: string, apiKey: string): Promise<AccountId> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl.replace(/\/+$/, '')}/api/v1/account`, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    throw new Error(
      `cannot reach the Obolus API at ${apiUrl} (${cause}); is \`obolus serve\` running there? (--api-url)`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as { id?: string; error?: { message?: string } };
  if (!response.ok || typeof body.id !== 'string') {
    throw new ApiRefusal(response.status, body.error?.message ?? `HTTP ${response.status} from ${apiUrl}`);
  }
  return accountIdArgument(body.id);
}

function eventsFetcher(apiUrl: string, apiKey: string): FetchEvents {
  return async (startingAfter) => {
    const query = `limit=100${startingAfter ? `&starting_after=${encodeURIComponent(startingAfter)}` : ''}`;
    const response = await fetch(`${apiUrl.replace(/\/+$/, '')}/api/v1/events?${query}`, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { data: ListedEvent[]; has_more: boolean; error?: { message: string } };
    if (!response.ok) throw new ApiRefusal(response.status, body.error?.message ?? `HTTP ${response.status}`);
    return body;
  };
}

class ApiRefusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function listen(
  options: ListenOptions & { apiKey: string; forwardTo: string },
  account: AccountId,
): Promise<void> {
  const [{ EventFollower }, { listenSecret }, { signMessage }] = await Promise.all([
    import('./event-follower.ts'),
    import('./listen-secret.ts'),
    import('../domain/webhooks/signing.ts'),
  ]);
  const follower = new EventFollower(eventsFetcher(options.apiUrl, options.apiKey));
  await follower.start();
  const secret = listenSecret(options.apiUrl, account, options.apiKey);
  const wanted = options.events?.includes('*') ? undefined : options.events;
  const mode = options.live ? 'live' : 'sandbox';
  console.log(
    `Ready! Your webhook signing secret is ${secret} (the same every session on this machine, for ${account})`,
  );
  console.log(
    `Forwarding ${wanted ? wanted.join(', ') : 'all'} ${mode} events from ${options.apiUrl} to ${options.forwardTo}   (Ctrl-C to quit)`,
  );
  if (!options.live) console.log('Live events are not forwarded; --live forwards them instead of sandbox ones.');
  let stopping = false;
  const stop = () => {
    stopping = true;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const session = { forwarded: 0, failed: 0, apiDown: false };
  while (!stopping) {
    await pollOnce(follower, options, { secret, sign: signMessage }, { types: wanted, mode }, session);
    await new Promise((resolve) => setTimeout(resolve, options.interval));
  }
  console.log(`Stopped: forwarded ${session.forwarded} event(s), ${session.failed} not answered with 2xx.`);
}

/** This machine's signing secret for the account, and how a delivery is signed with it. */
interface Signer {
  secret: string;
  sign: typeof import('../domain/webhooks/signing.ts').signMessage;
}

/** Forwards what is new; an unreachable API is reported once and retried, a refused key ends the session. */
async function pollOnce(
  follower: EventFollower,
  options: ListenOptions & { forwardTo: string },
  signer: Signer,
  wanted: { types: string[] | undefined; mode: 'live' | 'sandbox' },
  session: { forwarded: number; failed: number; apiDown: boolean },
): Promise<void> {
  try {
    for (const event of await follower.poll()) {
      if (event.mode !== wanted.mode) continue;
      if (wanted.types && !wanted.types.includes(event.type)) continue;
      session.forwarded++;
      if (!(await forward(options.forwardTo, signer, event))) session.failed++;
    }
    if (session.apiDown) console.error('Connected to the API again.');
    session.apiDown = false;
  } catch (error) {
    if (error instanceof ApiRefusal && (error.status === 401 || error.status === 403)) throw error;
    if (!session.apiDown)
      console.error(`Cannot read events from ${options.apiUrl} (${(error as Error).message}); retrying…`);
    session.apiDown = true;
  }
}

/** Signs like a real delivery (webhook-id is the event id) and prints one line. */
async function forward(url: string, signer: Signer, event: ListedEvent): Promise<boolean> {
  const body = JSON.stringify(event);
  const started = performance.now();
  const time = new Date().toISOString().slice(11, 19);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signer.sign([signer.secret], event.id, Date.now(), body) },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    const ms = Math.round(performance.now() - started);
    console.log(`${time}  --> ${modeTag(event)} ${event.type.padEnd(30)} ${event.id}  [${response.status}] ${ms} ms`);
    return response.ok;
  } catch (error) {
    const cause = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    console.log(`${time}  --> ${modeTag(event)} ${event.type.padEnd(30)} ${event.id}  [error] ${cause}`);
    return false;
  }
}

const modeTag = (event: ListedEvent) => `[${event.mode}]`.padEnd(9);
