"""Checks the signing test vectors with Python's standard library (3.8 or later).

    python3 check_vectors.py [path/to/test-vectors.json]

For each vector: the bytes of bodyBase64 must be the UTF-8 encoding of body, and
HMAC(algorithm, key = UTF-8 bytes of secretKey, message = those bytes), encoded as
lowercase hex or padded standard base64, must be the vector's signature. Prints one
line per failure and "N vectors OK" when all pass; exits 1 otherwise.
"""
import base64
import binascii
import hashlib
import hmac
import json
import sys

ALGORITHMS = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}


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


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "test-vectors.json"
    with open(path, encoding="utf-8") as file:
        vectors = json.load(file)["vectors"]
    failures = 0
    for vector in vectors:
        try:
            signature = signature_of(vector)
        except (KeyError, ValueError, binascii.Error) as error:
            print(f"FAIL {vector.get('name')}: {error}")
            failures += 1
            continue
        if not hmac.compare_digest(signature, vector["signature"]):
            print(f"FAIL {vector['name']}: computed {signature}")
            failures += 1
    if failures:
        print(f"{failures} of {len(vectors)} vectors failed")
        sys.exit(1)
    print(f"{len(vectors)} vectors OK")


if __name__ == "__main__":
    main()
