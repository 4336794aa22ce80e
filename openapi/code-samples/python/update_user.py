# Needs Python 3 (standard library only). Set
# INSTITUTION_API_URL, INSTITUTION_PUBLIC_KEY,
# INSTITUTION_SECRET_KEY, and USER_ID (the id create
# returned). Run: python3 update_user.py
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
user_id = os.environ["USER_ID"]
url = api_url + "/api/v1/external/users/" + user_id


def hmac_sha256(message):
    key = secret_key.encode("utf-8")
    return hmac.new(key, message, hashlib.sha256).digest()


# Update replaces the details: send all of them. The body
# is built once: these bytes are signed and sent.
body = """{
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
}""".encode("utf-8")

# Sign the bytes you send, never a re-serialization: a
# json.dumps of the same data gives other bytes (spaces,
# \u escapes) and a 401. HMAC-SHA256, lowercase hex.
signature = hmac_sha256(body).hex()

# And an RFC 9421 message signature: it covers the path
# too, so this request cannot be replayed later or as an
# update of another user.
body_hash = base64.b64encode(hashlib.sha256(body).digest())
digest = "sha-256=:" + body_hash.decode("ascii") + ":"
params = (
    '("@method" "@path" "content-digest")'
    f";created={int(time.time())}"
    f';nonce="{secrets.token_urlsafe(16)}"'
    f';keyid="{public_key}";alg="hmac-sha256"'
)
signature_base = "\n".join([
    '"@method": PUT',
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
    method="PUT",
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

print(status)
print(answer.decode("utf-8"))
sys.exit(0 if 200 <= status < 300 else 1)
