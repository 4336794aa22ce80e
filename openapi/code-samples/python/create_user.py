# Needs Python 3 (standard library only). Set
# INSTITUTION_API_URL (http://localhost:8080 for the
# reference server), INSTITUTION_PUBLIC_KEY and
# INSTITUTION_SECRET_KEY. Run: python3 create_user.py
import hashlib
import hmac
import os
import sys
import urllib.error
import urllib.request

api_url = os.environ["INSTITUTION_API_URL"]
public_key = os.environ["INSTITUTION_PUBLIC_KEY"]
secret_key = os.environ["INSTITUTION_SECRET_KEY"]

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
signature = hmac.new(
    secret_key.encode("utf-8"), body, hashlib.sha256
).hexdigest()

request = urllib.request.Request(
    api_url + "/api/v1/external/users",
    data=body,
    method="POST",
    headers={
        "Authorization": public_key + ":" + signature,
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
