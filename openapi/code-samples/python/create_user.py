# Needs Python 3 (standard library only). Set
# INSTITUTION_API_URL (http://localhost:8080 for the
# reference server), INSTITUTION_PUBLIC_KEY and
# INSTITUTION_SECRET_KEY. Run: python3 create_user.py
import base64
import hashlib
import hmac
import os
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

api_url = os.environ["INSTITUTION_API_URL"]
public_key = os.environ["INSTITUTION_PUBLIC_KEY"]
secret_key = os.environ["INSTITUTION_SECRET_KEY"]
url = api_url + "/api/v1/external/users"


def hmac_sha256(message):
    key = secret_key.encode("utf-8")
    return hmac.new(key, message, hashlib.sha256).digest()


# The body, built once: these bytes are signed and sent.
body = """{
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
}""".encode("utf-8")

# Sign the bytes you send, never a re-serialization: a
# json.dumps of the same data gives other bytes (spaces,
# \u escapes) and a 401. HMAC-SHA256, lowercase hex.
signature = hmac_sha256(body).hex()

# And an RFC 9421 message signature: it also covers the
# method, the path, the time and a one-time nonce, so a
# captured request cannot be replayed or sent elsewhere.
body_hash = base64.b64encode(hashlib.sha256(body).digest())
digest = "sha-256=:" + body_hash.decode("ascii") + ":"
params = (
    '("@method" "@path" "content-digest")'
    f";created={int(time.time())}"
    f';nonce="{secrets.token_urlsafe(16)}"'
    f';keyid="{public_key}";alg="hmac-sha256"'
)
signature_base = "\n".join([
    '"@method": POST',
    '"@path": ' + urllib.parse.urlsplit(url).path,
    '"content-digest": ' + digest,
    '"@signature-params": ' + params,
]).encode("utf-8")
message_signature = base64.b64encode(
    hmac_sha256(signature_base)
).decode("ascii")

request = urllib.request.Request(
    url,
    data=body,
    method="POST",
    headers={
        "Authorization": public_key + ":" + signature,
        "Content-Digest": digest,
        "Signature-Input": "sig1=" + params,
        "Signature": "sig1=:" + message_signature + ":",
        "Content-Type": "application/json",
    },
)
try:
    with urllib.request.urlopen(request) as response:
        status, answer = response.status, response.read()
except urllib.error.HTTPError as error:
    status, answer = error.code, error.read()

# 201 Created the first time; 200 OK when sent again.
print(status)
print(answer.decode("utf-8"))
sys.exit(0 if 200 <= status < 300 else 1)
