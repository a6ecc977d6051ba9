/**
 * The parts of Checkout.com's Payments API (api-reference.checkout.com) Obolus sends and
 * reads: our own declarations of its wire format, held against Checkout.com's definitions by
 * the test suite (test/fixtures/acquirers/, decision 0190).
 */

export interface CkoPaymentRequest {
  source: {
    type: 'card';
    number: string;
    expiry_month: number;
    expiry_year: number;
    cvv: string;
    name: string;
  };
  amount: number;
  currency: string;
  reference: string;
  processing_channel_id: string;
  capture: boolean;
  /** attempt_n3d: a card whose issuer is not enrolled is charged without authentication (decision 0194). */
  '3ds': { enabled: boolean; attempt_n3d: boolean };
  success_url: string;
  failure_url: string;
  payment_type: 'Regular';
  metadata: { obolus_intent: string; obolus_attempt: string };
  billing_descriptor?: { name: string; city: string };
}

export interface CkoCardSource {
  type?: string;
  scheme?: string;
  card_type?: string;
  issuer?: string;
  issuer_country?: string;
  bin?: string;
  last4?: string;
}

/** The statuses of PaymentResponse and PaymentDetails, and the documentation's later additions. */
export type CkoPaymentStatus =
  | 'Pending'
  | 'Authorized'
  | 'Card Verified'
  | 'Captured'
  | 'Partially Captured'
  | 'Declined'
  | 'Voided'
  | 'Refunded'
  | 'Partially Refunded'
  | 'Paid'
  | 'Cancelled'
  | 'Canceled'
  | 'Expired'
  | 'Retry Scheduled';

/**
 * A payment as POST /payments (201/202) and GET /payments/{id} answer it. The details of a
 * GET carry no response_code: the Authorization action in `actions` has it.
 */
export interface CkoPayment {
  id: string;
  status: CkoPaymentStatus;
  approved?: boolean;
  amount?: number;
  currency?: string;
  reference?: string;
  response_code?: string;
  response_summary?: string;
  auth_code?: string;
  source?: CkoCardSource;
  metadata?: Record<string, string>;
  '3ds'?: { enrolled?: string; downgraded?: boolean; authentication_response?: string; challenged?: boolean };
  actions?: { id: string; type: string; response_code?: string; response_summary?: string }[];
  _links?: { redirect?: { href: string } };
}

/** GET /payments?reference=… (documentation page, 2022): newest first. */
export interface CkoPaymentList {
  total_count?: number;
  data?: CkoPayment[];
}

/** POST /payments/{id}/refunds and /voids: 202 Accepted. */
export interface CkoRefundRequest {
  amount?: number;
  reference: string;
}
/** POST /payments/{id}/captures (CaptureRequest): 202 Accepted; `Final` releases what is not captured. */
export interface CkoCaptureRequest {
  amount: number;
  capture_type: 'Final';
  reference: string;
}
export interface CkoActionAccepted {
  action_id: string;
  reference?: string;
}

/** GET /payments/{id}/actions: newest first. */
export interface CkoAction {
  id: string;
  type: 'Authorization' | 'Card Verification' | 'Void' | 'Capture' | 'Refund' | 'Payout' | 'Return';
  amount?: number;
  approved?: boolean;
  response_code?: string;
  reference?: string;
}

/** An error of the SDK: `http_code` and `body` ({ error_type, error_codes }) when Checkout.com answered. */
export interface CkoSdkError {
  name?: string;
  http_code?: number;
  body?: { error_type?: string; error_codes?: string[] } | string;
}

/** A webhook (event) as Checkout.com sends it, signed by Cko-Signature. */
export interface CkoEvent {
  id: string;
  type: string;
  created_on?: string;
  data: {
    id?: string;
    payment_id?: string;
    action_id?: string;
    reference?: string;
    payment_reference?: string;
    amount?: number;
    currency?: string;
    response_code?: string;
    metadata?: Record<string, string>;
  };
}
