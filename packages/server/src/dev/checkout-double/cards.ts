/**
 * What the Checkout.com double does with a card, by number. Checkout.com's published sandbox
 * test cards (docs/testing/test-cards, 2024: 4242 4242 4242 4242 and 5436 0310 3060 6378
 * approve, 4485 0403 7153 6584 asks for 3-D Secure, 4544 2491 6767 3670 answers 20051,
 * 4724 1172 1595 1699 answers 20054) behave as documented, so `obolus verify-connector` runs
 * the same script against the double and a real sandbox account. The other numbers are ours,
 * one per response-code family, and a card whose issuer is not enrolled in 3-D Secure (no
 * published test card says what a real sandbox answers for it: verify-connector lists it as
 * a check for a real account).
 */
export interface CardProfile {
  scheme: string;
  issuer: string;
  country: string;
  cardType: 'Credit' | 'Debit' | 'Prepaid';
  responseCode: string;
  /** challenge: the issuer asks the shopper; not_enrolled: the issuer does no 3-D Secure. */
  threeDS?: 'challenge' | 'not_enrolled';
}

const VISA: CardProfile = {
  scheme: 'Visa',
  issuer: 'Checkout Double Bank',
  country: 'US',
  cardType: 'Credit',
  responseCode: '10000',
};

export const DOUBLE_CARDS: Record<string, CardProfile> = {
  '4242424242424242': VISA,
  '5436031030606378': { ...VISA, scheme: 'Mastercard' },
  '4485040371536584': { ...VISA, threeDS: 'challenge' },
  '4544249167673670': { ...VISA, country: 'GB', responseCode: '20051' },
  '4724117215951699': { ...VISA, country: 'GB', responseCode: '20054' },
  '4000000000000036': { ...VISA, cardType: 'Debit', threeDS: 'not_enrolled' },
  '4000000000000077': { ...VISA, country: 'gb', issuer: `A Very Long Bank Name ${'And Trust '.repeat(12)}`.trim() },
  '4000000000000002': { ...VISA, responseCode: '20005' },
  '4000000000009995': { ...VISA, responseCode: '20051' },
  '4000000000000069': { ...VISA, responseCode: '20054' },
  '4000000000000127': { ...VISA, responseCode: '20082' },
  '4000000000009987': { ...VISA, responseCode: '30041' },
  '4000000000009979': { ...VISA, responseCode: '30043' },
  '4100000000000019': { ...VISA, responseCode: '40101' },
};

export const cardProfile = (number: string): CardProfile => DOUBLE_CARDS[number] ?? VISA;

/** response_code -> response_summary (docs/resources/codes). */
export const SUMMARIES: Record<string, string> = {
  '10000': 'Approved',
  '20005': 'Declined - Do Not Honour',
  '20051': 'Insufficient Funds',
  '20054': 'Expired Card',
  '20082': 'Invalid CVV',
  '20150': 'Card not 3D Secure enabled',
  '20151': 'Cardholder failed 3DS authentication',
  '30041': 'Lost Card - Pick Up',
  '30043': 'Stolen Card - Pick Up',
  '40101': 'Risk Blocked Transaction',
};
