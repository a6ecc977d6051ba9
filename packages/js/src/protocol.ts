/**
 * The widget's postMessage protocol (docs/widget-protocol.md) and the shapes of the keys and
 * secrets it carries, in one place for the three that speak it: this loader, the widget in its
 * iframe (server/web/widget) and the server's pages and checks. Imported as `@obolus/js/protocol`.
 */

/** A client (publishable) key: safe in a browser, names the account. */
export const CLIENT_KEY = /^pk_[0-9A-Za-z]{8,64}$/;
/** A payment intent's client_secret; its first group is the intent's id. */
export const CLIENT_SECRET = /^pi_([0-9a-f]{24})_secret_[0-9A-Za-z]{24,100}$/;

/** Every message type, prefixed so a page's other messages are never mistaken for ours. */
export const MESSAGE = {
  /** widget → host: the frame is listening; answer with init. */
  ready: 'obolus:ready',
  /** host → widget: the intent to pay. */
  init: 'obolus:init',
  /** widget → host: the height the frame needs. */
  resize: 'obolus:resize',
  /** widget → host: the payment's outcome. */
  result: 'obolus:result',
  /** 3-D Secure page → widget (same origin): the bank's answer. */
  challengeComplete: 'obolus:challenge-complete',
} as const;

/** What the host's onResult receives, and the body of an `obolus:result` message. */
export interface ObolusResult {
  success: boolean;
  payment_intent: string | null;
  status: string | null;
  transaction_id?: string;
  error?: { type: string; code: string; message: string };
}

export interface ReadyMessage {
  type: typeof MESSAGE.ready;
}
export interface InitMessage {
  type: typeof MESSAGE.init;
  client_secret: string;
}
export interface ResizeMessage {
  type: typeof MESSAGE.resize;
  height: number;
}
export type ResultMessage = { type: typeof MESSAGE.result } & ObolusResult;
export interface ChallengeCompleteMessage<Outcome = string> {
  type: typeof MESSAGE.challengeComplete;
  outcome: Outcome;
}

/** What the widget posts to its host. */
export type WidgetMessage = ReadyMessage | ResizeMessage | ResultMessage;
