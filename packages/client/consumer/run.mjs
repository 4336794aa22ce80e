// Run by test/package.system.test.ts inside the consumer project, against a local server: the packed
// client signs, sends and reads both response shapes into the same User keys.
import { createUsersClient } from '@institution-api/client';

const users = createUsersClient({
  baseUrl: process.env.API_URL,
  publicKey: process.env.INSTITUTION_PUBLIC_KEY,
  secretKey: process.env.INSTITUTION_SECRET_KEY,
});
const body = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
};
const created = await users.createUser(body);
if (created.error) throw new Error(JSON.stringify(created.error));
const updated = await users.updateUser(created.data.user.id, body);
if (updated.error) throw new Error(JSON.stringify(updated.error));
console.log(
  JSON.stringify({
    created: created.data.created,
    create: Object.keys(created.data.user),
    update: Object.keys(updated.data.user),
  }),
);
