/**
 * What the double does with a card, by number: a subset of Stripe's documented test cards
 * (docs.stripe.com/testing), plus one of ours whose issuer details are odd. Any other
 * number is approved, as on a live account.
 */
export type CardScenario =
  | { kind: 'approve' }
  | { kind: 'decline'; code: string; declineCode?: string; message: string }
  | { kind: 'three_ds'; whenPassed: 'approve' | { code: string; declineCode: string } }
  | { kind: 'dispute' };

export interface CardProfile {
  brand: string;
  country: string;
  funding: string;
  issuer: string;
  scenario: CardScenario;
}

const decline = (declineCode: string, message: string, code = 'card_declined'): CardScenario => ({
  kind: 'decline',
  code,
  declineCode,
  message,
});

const VISA = { brand: 'visa', country: 'US', funding: 'credit', issuer: 'Stripe Test Bank' };

export const DOUBLE_CARDS: Record<string, CardProfile> = {
  '4242424242424242': { ...VISA, scenario: { kind: 'approve' } },
  '4000056655665556': { ...VISA, funding: 'debit', scenario: { kind: 'approve' } },
  '5555555555554444': { ...VISA, brand: 'mastercard', scenario: { kind: 'approve' } },
  '378282246310005': { ...VISA, brand: 'amex', scenario: { kind: 'approve' } },
  // Ours: approved, with a 150-character issuer name and a lower-case country (issue 10, item 4).
  '4000000000000077': {
    ...VISA,
    country: 'gb',
    issuer: `The Very Long Name Of A Bank ${'And Trust Company '.repeat(7)}`.trim(),
    scenario: { kind: 'approve' },
  },
  '4000000000000002': { ...VISA, scenario: decline('generic_decline', 'Your card was declined.') },
  '4000000000009995': { ...VISA, scenario: decline('insufficient_funds', 'Your card has insufficient funds.') },
  '4000000000009987': { ...VISA, scenario: decline('lost_card', 'Your card was declined.') },
  '4000000000009979': { ...VISA, scenario: decline('stolen_card', 'Your card was declined.') },
  '4100000000000019': { ...VISA, scenario: decline('fraudulent', 'Your card was declined.') },
  '4000000000000069': {
    ...VISA,
    scenario: decline('expired_card', 'Your card has expired.', 'expired_card'),
  },
  '4000000000000127': {
    ...VISA,
    scenario: decline('incorrect_cvc', "Your card's security code is incorrect.", 'incorrect_cvc'),
  },
  '4000000000000119': {
    ...VISA,
    scenario: {
      kind: 'decline',
      code: 'processing_error',
      message: 'An error occurred while processing your card. Try again in a little bit.',
    },
  },
  '4000000000003220': { ...VISA, scenario: { kind: 'three_ds', whenPassed: 'approve' } },
  '4000008400001629': {
    ...VISA,
    scenario: { kind: 'three_ds', whenPassed: { code: 'card_declined', declineCode: 'generic_decline' } },
  },
  '4000000000000259': { ...VISA, scenario: { kind: 'dispute' } },
};

export function cardProfile(number: string): CardProfile {
  return DOUBLE_CARDS[number] ?? { ...VISA, scenario: { kind: 'approve' } };
}
