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
}
