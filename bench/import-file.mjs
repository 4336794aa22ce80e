// The customer files of the import's benchmarks: `rows` customers as CSV, written streaming (a
// million rows never sit in memory), each with its own Ghana Card number and email, in the shape
// of the load generator's creates (apps/reference-server/bench/lib/requests.mjs `nextUser`, kyc
// included), so an imported row costs the server what one of its creates costs.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export const customersHeader =
  'email,firstName,lastName,mobileNumber,ghanaCardNumber,monthlyIncome,accountType,accountNumber,accountName,network,kyc.occupation,kyc.address,kyc.validFrom,kyc.validTo';

/** Customer `i` (from 1) as a CSV record. */
export function customerRecord(i) {
  const card = String(i).padStart(9, '0');
  return `import.${i}@example.com,Abena,Import,0241234567,GHA-${card}-${i % 10},${1500 + i},MOMO,0551234567,Abena Import,MTN,Trader,"House ${i}, Ring Road, Accra",2021-01-01,2031-01-01`;
}

/** Writes `rows` customers to `path` (CRLF line ends, as spreadsheets save them). */
export async function writeCustomersCsv(path, rows) {
  const out = createWriteStream(path);
  let chunk = `${customersHeader}\r\n`;
  for (let i = 1; i <= rows; i++) {
    chunk += `${customerRecord(i)}\r\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}
