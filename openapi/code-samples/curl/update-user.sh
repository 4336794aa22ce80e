# Needs bash, curl and openssl. Set INSTITUTION_API_URL,
# INSTITUTION_PUBLIC_KEY, INSTITUTION_SECRET_KEY, and
# USER_ID (the id create returned). Update replaces the
# details: send all of them.
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
curl -i -X PUT --data-binary @user.json \
  -H "Authorization: $INSTITUTION_PUBLIC_KEY:$SIGNATURE" \
  -H 'Content-Type: application/json' \
  "$INSTITUTION_API_URL/api/v1/external/users/$USER_ID"
