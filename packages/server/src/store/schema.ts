/**
 * Row shapes as stored. Timestamps are integer milliseconds since the epoch, money is
 * integer minor units, JSON is text, and booleans are 0/1 so both engines agree.
 */
export interface AccountsTable {
  id: string;
  name: string;
  email: string;
  status: 'active' | 'inactive';
  fee_bps: number;
  fee_fixed_minor: number;
  allowed_origins: string;
  client_key: string;
  created_at: number;
}

export interface SecretKeysTable {
  digest: string;
  account_id: string;
  last4: string;
  created_at: number;
  /** null while the key is current; set when a roll gives it a grace period. */
  expires_at: number | null;
}

export interface PaymentIntentsTable {
  id: string;
  account_id: string;
  amount: number;
  currency: string;
  status: string;
  mode: 'live' | 'sandbox';
  client_secret: string;
  reference: string | null;
  externalid: string | null;
  descriptor: string | null;
  description: string | null;
  theme: 'light' | 'dark' | null;
  metadata: string;
  product_id: string | null;
  created_at: number;
  updated_at: number;
  expires_at: number;
  last_transaction_id: string | null;
  failed_attempts: number;
}

export interface TransactionsTable {
  id: string;
  uuid: string;
  account_id: string;
  payment_intent_id: string;
  mode: 'live' | 'sandbox';
  status: number;
  amount: number;
  currency: string;
  fee_amount: number;
  fee_bps: number;
  fee_fixed_minor: number;
  refunded_amount: number;
  card_bin: string;
  card_last4: string;
  card_length: number;
  card_brand: string;
  card_exp_month: number;
  card_exp_year: number;
  cardholder: string;
  card_country: string | null;
  card_bank: string | null;
  externalid: string | null;
  product_id: string | null;
  chargeback: number;
  decline_code: string | null;
  decline_message: string | null;
  three_ds: string | null;
  authorization_code: string | null;
  processor: string;
  challenge_token: string | null;
  processor_challenge_ref: string | null;
  dispute_at: number | null;
  client_ip: string | null;
  created_at: number;
  updated_at: number;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  mode: 'live' | 'sandbox';
  object_type: string;
  object_id: string;
  object_seq: number;
  /** JSON text of data.object as it was when the event happened. */
  data: string;
  created_at: number;
}

export interface EncryptionKeysTable {
  kid: string;
  public_jwk: string;
  private_jwk: string;
  created_at: number;
  decrypts_until: number | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  /** 'in_flight' until the first response is stored, then 'done'. */
  state: 'in_flight' | 'done';
  status_code: number | null;
  response_body: string | null;
  created_at: number;
  locked_at: number;
}

export interface Database {
  accounts: AccountsTable;
  secret_keys: SecretKeysTable;
  payment_intents: PaymentIntentsTable;
  idempotency_keys: IdempotencyKeysTable;
  transactions: TransactionsTable;
  events: EventsTable;
  encryption_keys: EncryptionKeysTable;
}
