<?php
// Needs PHP 8 and its curl extension (php-curl).
// Set INSTITUTION_API_URL, INSTITUTION_PUBLIC_KEY,
// INSTITUTION_SECRET_KEY, and USER_ID (the id create
// returned). Run: php update_user.php
$apiUrl = getenv('INSTITUTION_API_URL');
$publicKey = getenv('INSTITUTION_PUBLIC_KEY');
$secretKey = getenv('INSTITUTION_SECRET_KEY');
$userId = getenv('USER_ID');

// Update replaces the details: send all of them. The body
// is built once: these bytes are signed and sent.
$body = <<<'JSON'
{
  "email": "akosua.asante@example.com",
  "firstName": "Akosua",
  "lastName": "Asante",
  "otherName": "Adjoa",
  "mobileNumber": "0209876543",
  "ghanaCardNumber": "GHA-700800900-1",
  "monthlyIncome": 2100,
  "accountType": "MOMO",
  "accountNumber": "0209876543",
  "network": "TELECEL",
  "accountName": "Akosua Asante"
}
JSON;

// Sign the bytes you send, never a re-serialization: a
// json_encode of the same data gives other bytes (\/ and
// \u escapes) and a 401. HMAC-SHA256, lowercase hex.
$signature = hash_hmac('sha256', $body, $secretKey);

$curl = curl_init(
    $apiUrl . '/api/v1/external/users/' . $userId
);
curl_setopt_array($curl, [
    CURLOPT_CUSTOMREQUEST => 'PUT',
    CURLOPT_POSTFIELDS => $body,
    CURLOPT_HTTPHEADER => [
        "Authorization: $publicKey:$signature",
        'Content-Type: application/json',
    ],
    CURLOPT_RETURNTRANSFER => true,
]);
$answer = curl_exec($curl);
if ($answer === false) {
    fwrite(STDERR, curl_error($curl) . "\n");
    exit(1);
}
$status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);

echo $status, "\n", $answer, "\n";
exit($status >= 200 && $status < 300 ? 0 : 1);
