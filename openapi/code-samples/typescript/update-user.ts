import { createUsersClient } from '@institution-api/client';

// INSTITUTION_API_URL: http://localhost:8080 for the
// reference server (npm start).
const users = createUsersClient({
  baseUrl: process.env.INSTITUTION_API_URL!,
  publicKey: process.env.INSTITUTION_PUBLIC_KEY!,
  secretKey: process.env.INSTITUTION_SECRET_KEY!,
});

// The id createUser returned (data.user.id). Update
// replaces the details: send all of them.
const userId = process.env.USER_ID!;
const { data, error } = await users.updateUser(userId, {
  email: 'akosua.asante@example.com',
  firstName: 'Akosua',
  lastName: 'Asante',
  otherName: 'Adjoa',
  mobileNumber: '0209876543',
  ghanaCardNumber: 'GHA-700800900-1',
  monthlyIncome: 2100,
  accountType: 'MOMO',
  accountNumber: '0209876543',
  network: 'TELECEL',
  accountName: 'Akosua Asante',
});
if (error) {
  console.error(error);
  process.exit(1);
}
const { id, monthlyIncome } = data.user;
console.log('updated', id, monthlyIncome);
