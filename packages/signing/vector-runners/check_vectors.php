<?php
// Checks the signing test vectors with PHP's standard library (PHP 7.4 or later).
//
//     php check_vectors.php [path/to/test-vectors.json]
//
// For each vector: the bytes of bodyBase64 must be the body's bytes (PHP strings are
// the UTF-8 bytes of the JSON text), and HMAC(algorithm, key = the bytes of secretKey,
// message = those bytes), encoded as lowercase hex or padded standard base64, must be
// the vector's signature. Prints one line per failure and "N vectors OK" when all
// pass; exits 1 otherwise.

/** The signature computed over the vector's exact body bytes, or an error message. */
function signature_of(array $vector): string
{
    $body = base64_decode($vector['bodyBase64'], true);
    if ($body === false || base64_encode($body) !== $vector['bodyBase64']) {
        throw new UnexpectedValueException('bodyBase64 is not canonical base64');
    }
    if ($body !== $vector['body']) {
        throw new UnexpectedValueException('bodyBase64 is not the UTF-8 encoding of body');
    }
    if (!in_array($vector['algorithm'], ['sha256', 'sha512'], true)) {
        throw new UnexpectedValueException('unknown algorithm ' . $vector['algorithm']);
    }
    $mac = hash_hmac($vector['algorithm'], $body, $vector['secretKey'], true);
    switch ($vector['encoding']) {
        case 'hex':
            return bin2hex($mac);
        case 'base64':
            return base64_encode($mac);
        default:
            throw new UnexpectedValueException('unknown encoding ' . $vector['encoding']);
    }
}

$path = $argv[1] ?? 'test-vectors.json';
$file = json_decode(file_get_contents($path), true, 512, JSON_THROW_ON_ERROR);
$vectors = $file['vectors'];
$failures = 0;
foreach ($vectors as $vector) {
    try {
        $signature = signature_of($vector);
    } catch (UnexpectedValueException $error) {
        echo "FAIL {$vector['name']}: {$error->getMessage()}\n";
        $failures++;
        continue;
    }
    if (!hash_equals($vector['signature'], $signature)) {
        echo "FAIL {$vector['name']}: computed {$signature}\n";
        $failures++;
    }
}
if ($failures > 0) {
    echo "{$failures} of " . count($vectors) . " vectors failed\n";
    exit(1);
}
echo count($vectors) . " vectors OK\n";
