// Needs Go 1.19 or later, standard library only. Set
// INSTITUTION_API_URL, INSTITUTION_PUBLIC_KEY,
// INSTITUTION_SECRET_KEY, and USER_ID (the id create
// returned). Run: go run update_user.go
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Update replaces the details: send all of them. The
// body is built once: these bytes are signed and sent.
var body = []byte(`{
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
}`)

func main() {
	url := os.Getenv("INSTITUTION_API_URL") +
		"/api/v1/external/users/" +
		os.Getenv("USER_ID")
	publicKey := os.Getenv("INSTITUTION_PUBLIC_KEY")
	secretKey := os.Getenv("INSTITUTION_SECRET_KEY")

	request, err := http.NewRequest(
		"PUT", url, bytes.NewReader(body))
	check(err)

	// Sign the bytes you send, never a
	// re-serialization: json.Marshal of the same
	// data gives other bytes (key order, \u003c
	// escapes) and a 401. HMAC-SHA256, lowercase hex.
	signature := hex.EncodeToString(
		hmacSHA256(secretKey, body))

	// And an RFC 9421 message signature: it covers
	// the path too, so this request cannot be replayed
	// later or as an update of another user.
	b64 := base64.StdEncoding.EncodeToString
	bodyHash := sha256.Sum256(body)
	digest := "sha-256=:" + b64(bodyHash[:]) + ":"
	nonce := make([]byte, 16)
	_, err = rand.Read(nonce)
	check(err)
	params := fmt.Sprintf(
		`("@method" "@path" "content-digest")`+
			`;created=%d;nonce="%s"`+
			`;keyid="%s";alg="hmac-sha256"`,
		time.Now().Unix(),
		hex.EncodeToString(nonce),
		publicKey)
	signatureBase := strings.Join([]string{
		`"@method": PUT`,
		`"@path": ` + request.URL.EscapedPath(),
		`"content-digest": ` + digest,
		`"@signature-params": ` + params,
	}, "\n")
	baseBytes := []byte(signatureBase)
	mac := hmacSHA256(secretKey, baseBytes)
	messageSignature := b64(mac)

	request.Header.Set(
		"Authorization", publicKey+":"+signature)
	request.Header.Set("Content-Digest", digest)
	request.Header.Set(
		"Signature-Input", "sig1="+params)
	request.Header.Set(
		"Signature", "sig1=:"+messageSignature+":")
	request.Header.Set(
		"Content-Type", "application/json")

	response, err := http.DefaultClient.Do(request)
	check(err)
	defer response.Body.Close()
	answer, err := io.ReadAll(response.Body)
	check(err)

	fmt.Println(response.StatusCode)
	fmt.Println(string(answer))
	if response.StatusCode >= 300 {
		os.Exit(1)
	}
}

func hmacSHA256(key string, message []byte) []byte {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write(message)
	return mac.Sum(nil)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
