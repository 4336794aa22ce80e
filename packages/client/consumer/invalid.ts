/**
 * Calls that must not compile for a consumer of the packed packages (test/package.system.test.ts counts
 * exactly these three errors): a MOMO account without `network`, a number as the user id, and a
 * field the spec does not have.
 */
import { createUsersClient } from '@institution-api/client';

const users = createUsersClient({
  baseUrl: 'http://127.0.0.1:1',
  publicKey: 'pk',
  secretKey: 'sk',
});
const base = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
};
users.createUser({ ...base, accountType: 'MOMO', accountNumber: '0241234567', accountName: 'Ama' });
users.updateUser(42, base);
users.createUser({ ...base, nickname: 'Ama' });
