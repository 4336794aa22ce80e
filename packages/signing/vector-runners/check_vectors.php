<?php
// Checks the signing test vectors with PHP's standard library (PHP 7.4 or later).
//
//     php check_vectors.php [path/to/test-vectors.json]
//
// For each vector: the bytes of bodyBase64 must be the body's bytes (PHP strings are
// the UTF-8 bytes of the JSON text), and HMAC(algorithm, key = the bytes of secretKey,
// message = those bytes), encoded as lowercase hex or padded standard base64, must be
// the vector's signature.
//
// For each message-signature vector (RFC 9421, hmac-sha256): the body's bytes as
// above (when it has one); contentDigest, when present, must be "sha-256=:<base64>:"
// or "sha-512=:<base64>:" of those bytes, and is the value of any "content-digest"
// line of signatureBase; the last line of signatureBase must be "@signature-params"
// with the value of signatureInput after its label; and HMAC-SHA256(key =
// secretKeyBase64's bytes, or else the bytes of secretKey, message = the bytes of
// signatureBase), in padded standard base64, must be the one in signature
// ("<label>=:<base64>:", the label of signatureInput).
//
// Prints one line per failure and "N vectors and M message-signature vectors OK"
// when all pass; exits 1 otherwise.

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

/** The exact bytes of a message-signature vector's body; null when it has none. */
function body_of(array $vector): ?string
{
    if (($vector['bodyBase64'] ?? null) === null) {
        return $vector['body'] ?? null;
    }
    $body = base64_decode($vector['bodyBase64'], true);
    if ($body === false || base64_encode($body) !== $vector['bodyBase64']) {
        throw new UnexpectedValueException('bodyBase64 is not canonical base64');
    }
    if (($vector['body'] ?? null) !== null && $body !== $vector['body']) {
        throw new UnexpectedValueException('bodyBase64 is not the UTF-8 encoding of body');
    }
    return $body;
}

/** The Signature value computed from the vector's signature base. */
function message_signature_of(array $vector): string
{
    $body = body_of($vector);
    $digest = $vector['contentDigest'] ?? null;
    if ($digest !== null) {
        $algorithm = explode('=', $digest, 2)[0];
        $hashes = ['sha-256' => 'sha256', 'sha-512' => 'sha512'];
        if (!isset($hashes[$algorithm])) {
            throw new UnexpectedValueException("unknown content digest {$algorithm}");
        }
        if ($body === null) {
            throw new UnexpectedValueException('contentDigest without a body');
        }
        $hash = hash($hashes[$algorithm], $body, true);
        $computed = "{$algorithm}=:" . base64_encode($hash) . ':';
        if (!hash_equals($computed, $digest)) {
            throw new UnexpectedValueException("content digest: computed {$computed}");
        }
    }
    $lines = explode("\n", $vector['signatureBase']);
    $prefix = '"content-digest": ';
    foreach ($lines as $line) {
        if (strncmp($line, $prefix, strlen($prefix)) === 0
            && substr($line, strlen($prefix)) !== $digest) {
            throw new UnexpectedValueException(
                "the signature base's content-digest is not contentDigest"
            );
        }
    }
    [$label, $params] = explode('=', $vector['signatureInput'], 2) + [1 => ''];
    if (end($lines) !== '"@signature-params": ' . $params) {
        throw new UnexpectedValueException(
            "the signature base does not end with signatureInput's parameters"
        );
    }
    if (($vector['secretKeyBase64'] ?? null) !== null) {
        $key = base64_decode($vector['secretKeyBase64'], true);
        if ($key === false) {
            throw new UnexpectedValueException('secretKeyBase64 is not base64');
        }
    } else {
        $key = $vector['secretKey'];
    }
    $mac = hash_hmac('sha256', $vector['signatureBase'], $key, true);
    return "{$label}=:" . base64_encode($mac) . ':';
}

/** Checks each vector with $compute; prints a line for each failure, returns how many. */
function failures_of(array $vectors, callable $compute): int
{
    $failures = 0;
    foreach ($vectors as $vector) {
        try {
            $signature = $compute($vector);
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
    return $failures;
}

$path = $argv[1] ?? 'test-vectors.json';
$file = json_decode(file_get_contents($path), true, 512, JSON_THROW_ON_ERROR);
$vectors = $file['vectors'];
$messageSignatures = $file['messageSignatures'] ?? [];
$failures = failures_of($vectors, 'signature_of')
    + failures_of($messageSignatures, 'message_signature_of');
if ($failures > 0) {
    $total = count($vectors) + count($messageSignatures);
    echo "{$failures} of {$total} vectors failed\n";
    exit(1);
}
echo count($vectors) . ' vectors and ' . count($messageSignatures)
    . " message-signature vectors OK\n";
