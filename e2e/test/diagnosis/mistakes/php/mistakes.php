<?php
// Mistakes integrators make when they sign a create in PHP (json_encode,
// hash_hmac, curl), one function each, run as `php mistakes.php <case>`. Each
// is the ordinary code a PHP developer writes; the one line that goes wrong is
// marked "MISTAKE". The corpus (../../corpus.ts) says what the sandbox and the
// doctor must answer.
//
// Environment: API_URL, PUBLIC_KEY, SECRET_KEY, USER_JSON (a user as JSON),
// DOTENV_FILE (a .env file with the keys in double quotes).

$url = getenv('API_URL') . '/api/v1/external/users';
$publicKey = getenv('PUBLIC_KEY');
$secretKey = getenv('SECRET_KEY');

function user(): array
{
    return json_decode(getenv('USER_JSON'), true);
}

function post(string $body, array $headers): int
{
    global $url;
    $lines = [];
    foreach ($headers as $name => $value) {
        $lines[] = "$name: $value";
    }
    $curl = curl_init($url);
    curl_setopt_array($curl, [
        CURLOPT_POST => true,
        CURLOPT_POSTFIELDS => $body,
        CURLOPT_HTTPHEADER => $lines,
        CURLOPT_RETURNTRANSFER => true,
    ]);
    curl_exec($curl);
    return curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
}

function signedHeaders(string $body, ?string $signature = null): array
{
    global $publicKey, $secretKey;
    $signature ??= hash_hmac('sha256', $body, $secretKey);
    return ['Content-Type' => 'application/json', 'Authorization' => "$publicKey:$signature"];
}

/** Content-Digest, Signature-Input and Signature, right unless told. */
function messageSignature(string $body, ?string $digest = null, ?callable $encode = null): array
{
    global $publicKey, $secretKey;
    $digest ??= 'sha-256=:' . base64_encode(hash('sha256', $body, true)) . ':';
    $params = '("@method" "@path" "content-digest")'
        . ';created=' . time()
        . ';nonce="' . bin2hex(random_bytes(16)) . '"'
        . ';keyid="' . $publicKey . '";alg="hmac-sha256"';
    $base = implode("\n", [
        '"@method": POST',
        '"@path": /api/v1/external/users',
        '"content-digest": ' . $digest,
        '"@signature-params": ' . $params,
    ]);
    $mac = hash_hmac('sha256', $base, $secretKey, true);
    $encode ??= fn ($bytes) => base64_encode($bytes);
    return [
        'Content-Digest' => $digest,
        'Signature-Input' => "sig1=$params",
        'Signature' => 'sig1=:' . $encode($mac) . ':',
    ];
}

function incomeAsFloat(): array
{
    $data = user();
    $data['monthlyIncome'] = (float) $data['monthlyIncome'];
    return $data;
}

function control(): int
{
    $body = json_encode(user());
    return post($body, signedHeaders($body) + messageSignature($body));
}

function zero_fraction_signed(): int
{
    global $secretKey;
    $data = incomeAsFloat();
    $signed = json_encode($data, JSON_PRESERVE_ZERO_FRACTION); // MISTAKE
    $body = json_encode($data);
    return post($body, signedHeaders($body, hash_hmac('sha256', $signed, $secretKey)));
}

function zero_fraction_sent(): int
{
    global $secretKey;
    $data = incomeAsFloat();
    $signature = hash_hmac('sha256', json_encode($data), $secretKey);
    $body = json_encode($data, JSON_PRESERVE_ZERO_FRACTION); // MISTAKE
    return post($body, signedHeaders($body, $signature));
}

function pretty_sent(): int
{
    global $secretKey;
    $data = user();
    $signature = hash_hmac('sha256', json_encode($data), $secretKey);
    $body = json_encode($data, JSON_PRETTY_PRINT); // MISTAKE
    return post($body, signedHeaders($body, $signature));
}

function pretty_signed(): int
{
    global $secretKey;
    $data = user();
    $signed = json_encode($data, JSON_PRETTY_PRINT); // MISTAKE
    $body = json_encode($data);
    return post($body, signedHeaders($body, hash_hmac('sha256', $signed, $secretKey)));
}

function escaped_slashes_signed(): int
{
    global $secretKey;
    $data = user();
    $signed = json_encode($data); // MISTAKE: escapes / and non-ASCII
    $body = json_encode($data, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    return post($body, signedHeaders($body, hash_hmac('sha256', $signed, $secretKey)));
}

function escaped_slashes_sent(): int
{
    global $secretKey;
    $data = user();
    $signed = json_encode($data, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    $body = json_encode($data); // MISTAKE: escapes / and non-ASCII
    return post($body, signedHeaders($body, hash_hmac('sha256', $signed, $secretKey)));
}

function utf8_encoded_twice(): int
{
    global $secretKey;
    $json = json_encode(user(), JSON_UNESCAPED_UNICODE);
    $signature = hash_hmac('sha256', $json, $secretKey);
    $body = @utf8_encode($json); // MISTAKE: it was UTF-8 already
    return post($body, signedHeaders($body, $signature));
}

function dotenv_quotes(): int
{
    $values = [];
    foreach (file(getenv('DOTENV_FILE'), FILE_IGNORE_NEW_LINES) as $line) {
        [$name, $value] = explode('=', $line, 2);
        $values[$name] = $value; // MISTAKE: keeps the quotes
    }
    $body = json_encode(user());
    $signature = hash_hmac('sha256', $body, $values['INSTITUTION_SECRET_KEY']);
    return post($body, signedHeaders($body, $signature));
}

function hex2bin_failed(): int
{
    global $secretKey;
    $body = json_encode(user());
    $key = @hex2bin($secretKey); // MISTAKE: not hex: false, an empty key
    return post($body, signedHeaders($body, hash_hmac('sha256', $body, (string) $key)));
}

function sha256_of_secret_and_body(): int
{
    global $secretKey;
    $body = json_encode(user());
    $signature = hash('sha256', $secretKey . $body); // MISTAKE: not an HMAC
    return post($body, signedHeaders($body, $signature));
}

function hmac_arguments_swapped(): int
{
    global $secretKey;
    $body = json_encode(user());
    $signature = hash_hmac('sha256', $secretKey, $body); // MISTAKE
    return post($body, signedHeaders($body, $signature));
}

function scheme_word(): int
{
    global $publicKey, $secretKey;
    $body = json_encode(user());
    $signature = hash_hmac('sha256', $body, $secretKey);
    return post($body, [
        'Content-Type' => 'application/json',
        'Authorization' => "Bearer $publicKey:$signature", // MISTAKE
    ]);
}

function space_after_colon(): int
{
    global $publicKey, $secretKey;
    $body = json_encode(user());
    $signature = hash_hmac('sha256', $body, $secretKey);
    return post($body, [
        'Content-Type' => 'application/json',
        'Authorization' => "$publicKey: $signature", // MISTAKE
    ]);
}

function secret_as_public_key(): int
{
    global $secretKey;
    $body = json_encode(user());
    $signature = hash_hmac('sha256', $body, $secretKey);
    return post($body, [
        'Content-Type' => 'application/json',
        'Authorization' => "$secretKey:$signature", // MISTAKE
    ]);
}

function digest_sha512_named_sha256(): int
{
    $body = json_encode(user());
    // MISTAKE: a SHA-512 digest under the name sha-256.
    $digest = 'sha-256=:' . base64_encode(hash('sha512', $body, true)) . ':';
    return post($body, signedHeaders($body) + messageSignature($body, $digest));
}

function signature_hex(): int
{
    $body = json_encode(user());
    $headers = messageSignature($body, null, fn ($mac) => bin2hex($mac)); // MISTAKE
    return post($body, signedHeaders($body) + $headers);
}

function created_iso_time(): int
{
    global $publicKey, $secretKey;
    $body = json_encode(user());
    $digest = 'sha-256=:' . base64_encode(hash('sha256', $body, true)) . ':';
    $params = '("@method" "@path" "content-digest")'
        . ';created="' . gmdate('c') . '"' // MISTAKE: a date, not seconds
        . ';nonce="' . bin2hex(random_bytes(16)) . '"'
        . ';keyid="' . $publicKey . '";alg="hmac-sha256"';
    $base = implode("\n", [
        '"@method": POST',
        '"@path": /api/v1/external/users',
        '"content-digest": ' . $digest,
        '"@signature-params": ' . $params,
    ]);
    $mac = base64_encode(hash_hmac('sha256', $base, $secretKey, true));
    return post($body, signedHeaders($body) + [
        'Content-Digest' => $digest,
        'Signature-Input' => "sig1=$params",
        'Signature' => "sig1=:$mac:",
    ]);
}

function md5_signature(): int
{
    global $secretKey;
    $body = json_encode(user());
    return post($body, signedHeaders($body, md5($secretKey . $body))); // MISTAKE
}

function created_microtime(): int
{
    global $publicKey, $secretKey;
    $body = json_encode(user());
    $digest = 'sha-256=:' . base64_encode(hash('sha256', $body, true)) . ':';
    $params = '("@method" "@path" "content-digest")'
        . ';created=' . microtime(true) // MISTAKE: a float with its microseconds
        . ';nonce="' . bin2hex(random_bytes(16)) . '"'
        . ';keyid="' . $publicKey . '";alg="hmac-sha256"';
    $base = implode("\n", [
        '"@method": POST',
        '"@path": /api/v1/external/users',
        '"content-digest": ' . $digest,
        '"@signature-params": ' . $params,
    ]);
    $mac = base64_encode(hash_hmac('sha256', $base, $secretKey, true));
    return post($body, signedHeaders($body) + [
        'Content-Digest' => $digest,
        'Signature-Input' => "sig1=$params",
        'Signature' => "sig1=:$mac:",
    ]);
}

echo str_replace('-', '_', $argv[1])(), "\n";
