# Needs bash, curl and openssl. Set INSTITUTION_API_URL
# (http://localhost:8080 for the reference server),
# INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY.
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
curl -i --data-binary @user.json \
  -H "Authorization: $INSTITUTION_PUBLIC_KEY:$SIGNATURE" \
  -H 'Content-Type: application/json' \
  "$INSTITUTION_API_URL/api/v1/external/users"
# 201 Created the first time; 200 OK when sent again.
