# Needs bash 5, curl and openssl. Set INSTITUTION_API_URL
# (http://localhost:8080 for the reference server),
# INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY.
URL="$INSTITUTION_API_URL/api/v1/external/users"
cat > user.json <<'EOF'
{
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
}
EOF
# Sign the file's exact bytes, sent as they are by
# --data-binary: HMAC-SHA256, hex (openssl's last word).
SIGNATURE=$(openssl dgst -sha256 \
  -hmac "$INSTITUTION_SECRET_KEY" user.json |
  awk '{print $NF}')
# And an RFC 9421 message signature: it also covers the
# method, the path, the time and a one-time nonce, so a
# captured request cannot be replayed or sent elsewhere.
DIGEST="sha-256=:$(openssl dgst -sha256 -binary user.json |
  openssl base64 -A):"
# The nonce: 16 random bytes, in hex.
NONCE=$(openssl rand -hex 16)
PARAMS="(\"@method\" \"@path\" \"content-digest\")\
;created=$EPOCHSECONDS;nonce=\"$NONCE\"\
;keyid=\"$INSTITUTION_PUBLIC_KEY\";alg=\"hmac-sha256\""
# The signature base: one line per component, the last
# without a newline. @path is the URL's path.
BASE="\"@method\": POST
\"@path\": /${URL#*://*/}
\"content-digest\": $DIGEST
\"@signature-params\": $PARAMS"
MESSAGE_SIGNATURE=$(printf %s "$BASE" |
  openssl dgst -sha256 -binary \
    -hmac "$INSTITUTION_SECRET_KEY" | openssl base64 -A)
curl -i --data-binary @user.json \
  -H "Authorization: $INSTITUTION_PUBLIC_KEY:$SIGNATURE" \
  -H "Content-Digest: $DIGEST" \
  -H "Signature-Input: sig1=$PARAMS" \
  -H "Signature: sig1=:$MESSAGE_SIGNATURE:" \
  -H 'Content-Type: application/json' \
  "$URL"
# 201 Created the first time; 200 OK when sent again.
