/** The two institutions of the mock's tests, as INSTITUTION_CREDENTIALS gives them. */
export const INSTITUTIONS = [
  {
    institution: 'Mock Lender',
    publicKey: 'mock-first',
    secretKey: 'mock-first-secret-0123456789',
  },
  {
    institution: 'Mock Savings',
    publicKey: 'mock-second',
    secretKey: 'mock-second-secret-0123456789',
  },
] as const;
