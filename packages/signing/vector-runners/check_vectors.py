"""Checks the signing test vectors with Python's standard library (3.8 or later).

    python3 check_vectors.py [path/to/test-vectors.json]

For each vector: the bytes of bodyBase64 must be the UTF-8 encoding of body, and
HMAC(algorithm, key = UTF-8 bytes of secretKey, message = those bytes), encoded as
lowercase hex or padded standard base64, must be the vector's signature.

For each message-signature vector (RFC 9421, hmac-sha256): the body's bytes as above
(when it has one); contentDigest, when present, must be "sha-256=:<base64>:" or
"sha-512=:<base64>:" of those bytes, and is the value of any "content-digest" line
of signatureBase; the last line of signatureBase must be "@signature-params" with the
value of signatureInput after its label; and HMAC-SHA256(key = secretKeyBase64's
bytes, or else the UTF-8 bytes of secretKey, message = the UTF-8 bytes of
signatureBase), in padded standard base64, must be the one in signature
("<label>=:<base64>:", the label of signatureInput).

Prints one line per failure and "N vectors and M message-signature vectors OK" when
all pass; exits 1 otherwise.
"""
import base64
import binascii
import hashlib
import hmac
import json
import sys

ALGORITHMS = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}
DIGESTS = {"sha-256": hashlib.sha256, "sha-512": hashlib.sha512}


def signature_of(vector):
    """The signature computed over the vector's exact body bytes."""
    body = base64.b64decode(vector["bodyBase64"], validate=True)
    if body != vector["body"].encode("utf-8"):
        raise ValueError("bodyBase64 is not the UTF-8 encoding of body")
    digest = ALGORITHMS[vector["algorithm"]]
    mac = hmac.new(vector["secretKey"].encode("utf-8"), body, digest).digest()
    if vector["encoding"] == "hex":
        return mac.hex()
    if vector["encoding"] == "base64":
        return base64.b64encode(mac).decode("ascii")
    raise ValueError("unknown encoding " + vector["encoding"])


def body_of(vector):
    """The exact bytes of a message-signature vector's body; None when it has none."""
    if vector.get("bodyBase64") is None:
        body = vector.get("body")
        return None if body is None else body.encode("utf-8")
    body = base64.b64decode(vector["bodyBase64"], validate=True)
    if vector.get("body") is not None and body != vector["body"].encode("utf-8"):
        raise ValueError("bodyBase64 is not the UTF-8 encoding of body")
    return body


def message_signature_of(vector):
    """The Signature value computed from the vector's signature base."""
    body = body_of(vector)
    digest = vector.get("contentDigest")
    if digest is not None:
        algorithm = digest.split("=", 1)[0]
        if algorithm not in DIGESTS:
            raise ValueError("unknown content digest " + algorithm)
        if body is None:
            raise ValueError("contentDigest without a body")
        value = base64.b64encode(DIGESTS[algorithm](body).digest()).decode("ascii")
        computed = f"{algorithm}=:{value}:"
        if not hmac.compare_digest(computed, digest):
            raise ValueError("content digest: computed " + computed)
    lines = vector["signatureBase"].split("\n")
    prefix = '"content-digest": '
    for line in lines:
        if line.startswith(prefix) and line[len(prefix):] != digest:
            raise ValueError("the signature base's content-digest is not contentDigest")
    label, _, params = vector["signatureInput"].partition("=")
    if lines[-1] != '"@signature-params": ' + params:
        raise ValueError(
            "the signature base does not end with signatureInput's parameters"
        )
    if vector.get("secretKeyBase64") is not None:
        key = base64.b64decode(vector["secretKeyBase64"], validate=True)
    else:
        key = vector["secretKey"].encode("utf-8")
    base = vector["signatureBase"].encode("utf-8")
    mac = hmac.new(key, base, hashlib.sha256).digest()
    return f"{label}=:{base64.b64encode(mac).decode('ascii')}:"


def failures_of(vectors, compute):
    """Checks each vector with compute; prints each failure, returns how many."""
    failures = 0
    for vector in vectors:
        try:
            signature = compute(vector)
        except (KeyError, ValueError, binascii.Error) as error:
            print(f"FAIL {vector.get('name')}: {error}")
            failures += 1
            continue
        if not hmac.compare_digest(signature, vector["signature"]):
            print(f"FAIL {vector['name']}: computed {signature}")
            failures += 1
    return failures


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "test-vectors.json"
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    vectors = data["vectors"]
    message_signatures = data.get("messageSignatures", [])
    failures = failures_of(vectors, signature_of)
    failures += failures_of(message_signatures, message_signature_of)
    if failures:
        total = len(vectors) + len(message_signatures)
        print(f"{failures} of {total} vectors failed")
        sys.exit(1)
    print(
        f"{len(vectors)} vectors and {len(message_signatures)}"
        " message-signature vectors OK"
    )


if __name__ == "__main__":
    main()
