// Needs Go 1.19 or later, standard library only. Set
// INSTITUTION_API_URL (http://localhost:8080 for the
// reference server), INSTITUTION_PUBLIC_KEY and
// INSTITUTION_SECRET_KEY. Run: go run create_user.go
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
)

// The body, built once: these bytes are signed and sent.
var body = []byte(`{
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
}`)

func main() {
	url := os.Getenv("INSTITUTION_API_URL") +
		"/api/v1/external/users"
	publicKey := os.Getenv("INSTITUTION_PUBLIC_KEY")
	secretKey := os.Getenv("INSTITUTION_SECRET_KEY")

	// Sign the bytes you send, never a
	// re-serialization: json.Marshal of the same
	// data gives other bytes (key order, \u003c
	// escapes) and a 401. HMAC-SHA256, lowercase hex.
	mac := hmac.New(sha256.New, []byte(secretKey))
	mac.Write(body)
	signature := hex.EncodeToString(mac.Sum(nil))

	request, err := http.NewRequest(
		"POST", url, bytes.NewReader(body))
	check(err)
	request.Header.Set(
		"Authorization", publicKey+":"+signature)
	request.Header.Set(
		"Content-Type", "application/json")

	response, err := http.DefaultClient.Do(request)
	check(err)
	defer response.Body.Close()
	answer, err := io.ReadAll(response.Body)
	check(err)

	// 201 Created the first time; 200 OK when sent
	// again.
	fmt.Println(response.StatusCode)
	fmt.Println(string(answer))
	if response.StatusCode >= 300 {
		os.Exit(1)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
