# Needs bash 5, curl and openssl. Set INSTITUTION_API_URL,
# INSTITUTION_PUBLIC_KEY, INSTITUTION_SECRET_KEY, and
# USER_ID (the id create returned). Update replaces the
# details: send all of them.
URL="$INSTITUTION_API_URL/api/v1/external/users/$USER_ID"
cat > user.json <<'EOF'
{
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
}
EOF
SIGNATURE=$(openssl dgst -sha256 \
  -hmac "$INSTITUTION_SECRET_KEY" user.json |
  awk '{print $NF}')
# The message signature covers the path: this request
# cannot be replayed as an update of another user.
DIGEST="sha-256=:$(openssl dgst -sha256 -binary user.json |
  openssl base64 -A):"
# The nonce: 16 random bytes, in hex.
NONCE=$(openssl rand -hex 16)
PARAMS="(\"@method\" \"@path\" \"content-digest\")\
;created=$EPOCHSECONDS;nonce=\"$NONCE\"\
;keyid=\"$INSTITUTION_PUBLIC_KEY\";alg=\"hmac-sha256\""
BASE="\"@method\": PUT
\"@path\": /${URL#*://*/}
\"content-digest\": $DIGEST
\"@signature-params\": $PARAMS"
MESSAGE_SIGNATURE=$(printf %s "$BASE" |
  openssl dgst -sha256 -binary \
    -hmac "$INSTITUTION_SECRET_KEY" | openssl base64 -A)
curl -i -X PUT --data-binary @user.json \
  -H "Authorization: $INSTITUTION_PUBLIC_KEY:$SIGNATURE" \
  -H "Content-Digest: $DIGEST" \
  -H "Signature-Input: sig1=$PARAMS" \
  -H "Signature: sig1=:$MESSAGE_SIGNATURE:" \
  -H 'Content-Type: application/json' \
  "$URL"
