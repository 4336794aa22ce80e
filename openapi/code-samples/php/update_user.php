<?php
// Needs PHP 8 and its curl extension (php-curl).
// Set INSTITUTION_API_URL, INSTITUTION_PUBLIC_KEY,
// INSTITUTION_SECRET_KEY, and USER_ID (the id create
// returned). Run: php update_user.php
$apiUrl = getenv('INSTITUTION_API_URL');
$publicKey = getenv('INSTITUTION_PUBLIC_KEY');
$secretKey = getenv('INSTITUTION_SECRET_KEY');
$userId = getenv('USER_ID');
$url = $apiUrl . '/api/v1/external/users/' . $userId;

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

// And an RFC 9421 message signature: it covers the path
// too, so this request cannot be replayed later or as an
// update of another user.
$digest = 'sha-256=:'
    . base64_encode(hash('sha256', $body, true)) . ':';
$nonce = rtrim(
    strtr(base64_encode(random_bytes(16)), '+/', '-_'),
    '='
);
$params = '("@method" "@path" "content-digest")'
    . ';created=' . time() . ";nonce=\"$nonce\""
    . ";keyid=\"$publicKey\";alg=\"hmac-sha256\"";
$signatureBase = implode("\n", [
    '"@method": PUT',
    '"@path": ' . parse_url($url, PHP_URL_PATH),
    '"content-digest": ' . $digest,
    '"@signature-params": ' . $params,
]);
$messageSignature = base64_encode(
    hash_hmac('sha256', $signatureBase, $secretKey, true)
);

$curl = curl_init($url);
curl_setopt_array($curl, [
    CURLOPT_CUSTOMREQUEST => 'PUT',
    CURLOPT_POSTFIELDS => $body,
    CURLOPT_HTTPHEADER => [
        "Authorization: $publicKey:$signature",
        "Content-Digest: $digest",
        "Signature-Input: sig1=$params",
        "Signature: sig1=:$messageSignature:",
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
