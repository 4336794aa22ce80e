/**
 * The key pair of the tests that need no server-issued one (a client against a recording server,
 * the CLI's signatures): fake, and long enough to be recognizable in output, so that a test can
 * assert the secret never appears there.
 */
export const testKeys = Object.freeze({
  publicKey: 'pk_test_institution',
  secretKey: 'sk_test_do_not_print_0123456789',
});
