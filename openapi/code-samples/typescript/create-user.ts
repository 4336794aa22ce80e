import { createUsersClient } from '@institution-api/client';

// INSTITUTION_API_URL: http://localhost:8080 for the
// reference server (npm start).
const users = createUsersClient({
  baseUrl: process.env.INSTITUTION_API_URL!,
  publicKey: process.env.INSTITUTION_PUBLIC_KEY!,
  secretKey: process.env.INSTITUTION_SECRET_KEY!,
});

// Signed for you, both ways (Authorization and an RFC
// 9421 message signature, fresh on every retry), and
// type-checked against the spec: a MOMO account without a
// network does not compile.
const { data, error } = await users.createUser({
  email: 'akosua.asante@example.com',
  firstName: 'Akosua',
  lastName: 'Asante',
  mobileNumber: '0209876543',
  ghanaCardNumber: 'GHA-700800900-1',
  monthlyIncome: 1800,
  accountType: 'MOMO',
  accountNumber: '0209876543',
  network: 'TELECEL',
  accountName: 'Akosua Asante',
});
if (error) {
  // kind 'http': the service's problem details
  console.error(error);
  process.exit(1);
}
// created: true for 201 (the first run), false for 200
// (run again). data.user has one camelCase shape,
// whichever response shape the service sent.
const outcome = data.created ? 'created' : 'added';
console.log(outcome, data.user.id);
