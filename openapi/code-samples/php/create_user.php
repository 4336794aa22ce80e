<?php
// Needs PHP 8 and its curl extension (php-curl).
// Set INSTITUTION_API_URL (http://localhost:8080 for the
// reference server), INSTITUTION_PUBLIC_KEY and
// INSTITUTION_SECRET_KEY. Run: php create_user.php
$apiUrl = getenv('INSTITUTION_API_URL');
$publicKey = getenv('INSTITUTION_PUBLIC_KEY');
$secretKey = getenv('INSTITUTION_SECRET_KEY');

// The body, built once: these bytes are signed and sent.
$body = <<<'JSON'
{
  "email": "akosua.asante@example.com",
  "firstName": "Akosua",
  "lastName": "Asante",
  "mobileNumber": "0209876543",
  "ghanaCardNumber": "GHA-700800900-1",
  "monthlyIncome": 1800,
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

$curl = curl_init($apiUrl . '/api/v1/external/users');
curl_setopt_array($curl, [
    CURLOPT_POST => true,
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

// 201 Created the first time; 200 OK when sent again.
echo $status, "\n", $answer, "\n";
exit($status >= 200 && $status < 300 ? 0 : 1);
