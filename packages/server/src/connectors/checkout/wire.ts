/**
 * The parts of Checkout.com's Payments API (api-reference.checkout.com) Obolus sends and
 * reads. checkout-sdk-node is untyped: these are our own declarations of its wire format.
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
  '3ds': { enabled: boolean };
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
  | 'Canceled'
  | 'Expired'
  | 'Retry Scheduled';

/** A payment as POST /payments (201/202) and GET /payments/{id} answer it. */
export interface CkoPayment {
  id: string;
  status: CkoPaymentStatus;
  approved?: boolean;
  amount?: number;
  reference?: string;
  response_code?: string;
  response_summary?: string;
  auth_code?: string;
  source?: CkoCardSource;
  metadata?: Record<string, string>;
  '3ds'?: { enrolled?: string; authentication_response?: string; challenged?: boolean };
  _links?: { redirect?: { href: string } };
}

/** GET /payments?reference=… */
export interface CkoPaymentList {
  total_count?: number;
  data?: CkoPayment[];
}

/** POST /payments/{id}/refunds: 202 Accepted. */
export interface CkoRefundRequest {
  amount?: number;
  reference: string;
}
export interface CkoActionAccepted {
  action_id: string;
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
    amount?: number;
    response_code?: string;
    metadata?: Record<string, string>;
  };
}
