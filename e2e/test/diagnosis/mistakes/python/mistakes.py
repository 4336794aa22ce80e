# Mistakes integrators make when they sign a create in Python (standard library
# only: urllib, http.client, json, hmac), one function each, run as
# `python3 mistakes.py <case>`. Each is the ordinary code a Python developer
# writes; the one line that goes wrong is marked "MISTAKE". The corpus
# (../../corpus.ts) says what the sandbox and the doctor must answer.
#
# Environment: API_URL, PUBLIC_KEY, SECRET_KEY, USER_JSON (a user as JSON),
# SECRET_FILE (the secret key written by `echo`), DOTENV_FILE (a .env file
# with the keys in double quotes).
import base64
import calendar
import hashlib
import hmac
import http.client
import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime

API_URL = os.environ["API_URL"]
PUBLIC_KEY = os.environ["PUBLIC_KEY"]
SECRET_KEY = os.environ["SECRET_KEY"]
URL = API_URL + "/api/v1/external/users"
PATH = urllib.parse.urlsplit(URL).path


def user():
    return json.loads(os.environ["USER_JSON"])


def hmac_hex(key, message):
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def post(body, headers):
    request = urllib.request.Request(URL, data=body, method="POST")
    for name, value in headers.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def content_digest(body):
    digest = hashlib.sha256(body).digest()
    return "sha-256=:" + base64.b64encode(digest).decode() + ":"


def signature_params(created=None, keyid=None):
    created = int(time.time()) if created is None else created
    keyid = PUBLIC_KEY if keyid is None else keyid
    return (
        '("@method" "@path" "content-digest")'
        f";created={created}"
        f';nonce="{secrets.token_urlsafe(16)}"'
        f';keyid="{keyid}";alg="hmac-sha256"'
    )


def message_signature(body, params=None, digest=None, lines=None):
    """Content-Digest, Signature-Input and Signature, right unless told."""
    params = signature_params() if params is None else params
    digest = content_digest(body) if digest is None else digest
    base = "\n".join(lines or [
        '"@method": POST',
        '"@path": ' + PATH,
        '"content-digest": ' + digest,
        '"@signature-params": ' + params,
    ])
    mac = hmac.new(SECRET_KEY.encode(), base.encode(), hashlib.sha256)
    return {
        "Content-Digest": digest,
        "Signature-Input": "sig1=" + params,
        "Signature": "sig1=:" + base64.b64encode(mac.digest()).decode() + ":",
    }


def signed_headers(body, signature=None):
    signature = signature or hmac_hex(SECRET_KEY.encode(), body)
    return {
        "Content-Type": "application/json",
        "Authorization": f"{PUBLIC_KEY}:{signature}",
    }


def control():
    body = json.dumps(user(), separators=(",", ":")).encode()
    return post(body, {**signed_headers(body), **message_signature(body)})


def float_income_signed_sorted():
    payload = user()
    payload["monthlyIncome"] = float(payload["monthlyIncome"])
    signed = json.dumps(payload, sort_keys=True).encode()  # MISTAKE
    body = json.dumps(payload).encode()
    return post(body, signed_headers(body, hmac_hex(SECRET_KEY.encode(), signed)))


def float_income_signed_compact():
    payload = user()
    payload["monthlyIncome"] = float(payload["monthlyIncome"])
    signed = json.dumps(payload, separators=(",", ":")).encode()  # MISTAKE
    body = json.dumps(payload).encode()
    return post(body, signed_headers(body, hmac_hex(SECRET_KEY.encode(), signed)))


def ascii_escapes_signed():
    payload = user()
    signed = json.dumps(payload).encode()  # MISTAKE: ensure_ascii escapes
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    return post(body, signed_headers(body, hmac_hex(SECRET_KEY.encode(), signed)))


def sent_sorted():
    payload = user()
    signature = hmac_hex(SECRET_KEY.encode(), json.dumps(payload).encode())
    body = json.dumps(payload, sort_keys=True).encode()  # MISTAKE
    return post(body, signed_headers(body, signature))


def http_client_latin1():
    text = json.dumps(user(), ensure_ascii=False)
    signature = hmac_hex(SECRET_KEY.encode(), text.encode("utf-8"))
    connection = http.client.HTTPConnection(urllib.parse.urlsplit(URL).netloc)
    # MISTAKE: http.client encodes a str body as ISO-8859-1.
    connection.request("POST", PATH, body=text, headers={
        "Content-Type": "application/json",
        "Authorization": f"{PUBLIC_KEY}:{signature}",
    })
    return connection.getresponse().status


def secret_file_newline():
    with open(os.environ["SECRET_FILE"]) as file:
        secret = file.read()  # MISTAKE: keeps the final newline
    body = json.dumps(user()).encode()
    return post(body, signed_headers(body, hmac_hex(secret.encode(), body)))


def dotenv_quotes():
    values = {}
    with open(os.environ["DOTENV_FILE"]) as file:
        for line in file.read().splitlines():
            if "=" in line:
                name, value = line.split("=", 1)
                values[name] = value  # MISTAKE: keeps the quotes
    secret = values["INSTITUTION_SECRET_KEY"]
    body = json.dumps(user()).encode()
    return post(body, signed_headers(body, hmac_hex(secret.encode(), body)))


def prefix_stripped_base64():
    encoded = SECRET_KEY[len("sk_"):]  # MISTAKE: then decoded
    key = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    body = json.dumps(user()).encode()
    return post(body, signed_headers(body, hmac_hex(key, body)))


def sha256_of_secret_and_body():
    body = json.dumps(user()).encode()
    # MISTAKE: a hash of the secret and the body, not an HMAC.
    signature = hashlib.sha256(SECRET_KEY.encode() + body).hexdigest()
    return post(body, signed_headers(body, signature))


def scheme_word():
    body = json.dumps(user()).encode()
    signature = hmac_hex(SECRET_KEY.encode(), body)
    return post(body, {
        "Content-Type": "application/json",
        "Authorization": f"HMAC {PUBLIC_KEY}:{signature}",  # MISTAKE
    })


def signature_with_algorithm_prefix():
    body = json.dumps(user()).encode()
    signature = hmac_hex(SECRET_KEY.encode(), body)
    return post(body, {
        "Content-Type": "application/json",
        "Authorization": f"{PUBLIC_KEY}:sha256={signature}",  # MISTAKE
    })


def dict_repr_signed():
    payload = user()
    signature = hmac_hex(SECRET_KEY.encode(), str(payload).encode())  # MISTAKE
    body = json.dumps(payload).encode()
    return post(body, signed_headers(body, signature))


def field_added_after_signing():
    payload = user()
    signature = hmac_hex(SECRET_KEY.encode(), json.dumps(payload).encode())
    payload["isGhanaCardVerified"] = True  # MISTAKE: after signing
    body = json.dumps(payload).encode()
    return post(body, signed_headers(body, signature))


def components_unquoted():
    body = json.dumps(user()).encode()
    params = (
        "(@method @path content-digest)"  # MISTAKE: not quoted
        f";created={int(time.time())}"
        f';nonce="{secrets.token_urlsafe(16)}"'
        f';keyid="{PUBLIC_KEY}";alg="hmac-sha256"'
    )
    return post(body, {**signed_headers(body), **message_signature(body, params)})


def label_mismatch():
    body = json.dumps(user()).encode()
    headers = message_signature(body)
    headers["Signature"] = "sig=" + headers["Signature"][len("sig1="):]  # MISTAKE
    return post(body, {**signed_headers(body), **headers})


def digest_hex():
    body = json.dumps(user()).encode()
    digest = "sha-256=:" + hashlib.sha256(body).hexdigest() + ":"  # MISTAKE
    return post(body, {**signed_headers(body), **message_signature(body, digest=digest)})


def digest_algorithm_without_dash():
    body = json.dumps(user()).encode()
    b64 = base64.b64encode(hashlib.sha256(body).digest()).decode()
    digest = "sha256=:" + b64 + ":"  # MISTAKE
    return post(body, {**signed_headers(body), **message_signature(body, digest=digest)})


def created_float():
    body = json.dumps(user()).encode()
    params = signature_params(created=time.time())  # MISTAKE: a float
    return post(body, {**signed_headers(body), **message_signature(body, params)})


def created_local_time():
    body = json.dumps(user()).encode()
    # MISTAKE: the local time read as if it were UTC.
    created = calendar.timegm(datetime.now().timetuple())
    params = signature_params(created=created)
    return post(body, {**signed_headers(body), **message_signature(body, params)})


def retry_same_signature():
    body = json.dumps(user()).encode()
    headers = {**signed_headers(body), **message_signature(body)}
    post(body, headers)
    return post(body, headers)  # MISTAKE: a retry with the same nonce


def secret_in_keyid():
    body = json.dumps(user()).encode()
    params = signature_params(keyid=SECRET_KEY)  # MISTAKE
    return post(body, {**signed_headers(body), **message_signature(body, params)})


def content_type_signed_not_sent():
    body = json.dumps(user()).encode()
    digest = content_digest(body)
    params = (
        '("@method" "@path" "content-type" "content-digest")'
        f";created={int(time.time())}"
        f';nonce="{secrets.token_urlsafe(16)}"'
        f';keyid="{PUBLIC_KEY}";alg="hmac-sha256"'
    )
    lines = [
        '"@method": POST',
        '"@path": ' + PATH,
        '"content-type": application/json',
        '"content-digest": ' + digest,
        '"@signature-params": ' + params,
    ]
    headers = {**signed_headers(body), **message_signature(body, params, digest, lines)}
    del headers["Content-Type"]  # MISTAKE: urllib then sends its own
    return post(body, headers)


def base_crlf():
    body = json.dumps(user()).encode()
    params = signature_params()
    digest = content_digest(body)
    base = "\r\n".join([  # MISTAKE: CRLF between the lines
        '"@method": POST',
        '"@path": ' + PATH,
        '"content-digest": ' + digest,
        '"@signature-params": ' + params,
    ])
    mac = hmac.new(SECRET_KEY.encode(), base.encode(), hashlib.sha256).digest()
    return post(body, {
        **signed_headers(body),
        "Content-Digest": digest,
        "Signature-Input": "sig1=" + params,
        "Signature": "sig1=:" + base64.b64encode(mac).decode() + ":",
    })


def signed_pretty_sorted():
    payload = user()
    signed = json.dumps(payload, sort_keys=True, indent=2).encode()  # MISTAKE
    body = json.dumps(payload, separators=(",", ":")).encode()
    return post(body, signed_headers(body, hmac_hex(SECRET_KEY.encode(), signed)))


def space_instead_of_colon():
    body = json.dumps(user()).encode()
    signature = hmac_hex(SECRET_KEY.encode(), body)
    return post(body, {
        "Content-Type": "application/json",
        "Authorization": f"{PUBLIC_KEY} {signature}",  # MISTAKE
    })


def hmac_sha512():
    body = json.dumps(user()).encode()
    # MISTAKE: SHA-512 where the service uses SHA-256.
    signature = hmac.new(SECRET_KEY.encode(), body, hashlib.sha512).hexdigest()
    return post(body, signed_headers(body, signature))


def form_encoded_body():
    payload = user()
    signature = hmac_hex(SECRET_KEY.encode(), json.dumps(payload).encode())
    body = urllib.parse.urlencode(payload).encode()  # MISTAKE: a form, not JSON
    return post(body, {"Authorization": f"{PUBLIC_KEY}:{signature}"})


if __name__ == "__main__":
    print(globals()[sys.argv[1].replace("-", "_")]())
