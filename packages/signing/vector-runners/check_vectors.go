// Checks the signing test vectors with Go's standard library (Go 1.19 or later).
//
//	go run check_vectors.go [path/to/test-vectors.json]
//
// For each vector: the bytes of bodyBase64 must be the UTF-8 encoding of body (Go
// strings hold the UTF-8 bytes of the JSON text), and HMAC(algorithm, key = the bytes
// of secretKey, message = those bytes), encoded as lowercase hex or padded standard
// base64, must be the vector's signature. Prints one line per failure and
// "N vectors OK" when all pass; exits 1 otherwise.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"os"
)

type vector struct {
	Name       string `json:"name"`
	Algorithm  string `json:"algorithm"`
	Encoding   string `json:"encoding"`
	SecretKey  string `json:"secretKey"`
	Body       string `json:"body"`
	BodyBase64 string `json:"bodyBase64"`
	Signature  string `json:"signature"`
}

// signatureOf computes the signature over the vector's exact body bytes.
func signatureOf(v vector) (string, error) {
	body, err := base64.StdEncoding.Strict().DecodeString(v.BodyBase64)
	if err != nil {
		return "", fmt.Errorf("bodyBase64: %v", err)
	}
	if string(body) != v.Body {
		return "", fmt.Errorf("bodyBase64 is not the UTF-8 encoding of body")
	}
	var digest func() hash.Hash
	switch v.Algorithm {
	case "sha256":
		digest = sha256.New
	case "sha512":
		digest = sha512.New
	default:
		return "", fmt.Errorf("unknown algorithm %s", v.Algorithm)
	}
	mac := hmac.New(digest, []byte(v.SecretKey))
	mac.Write(body)
	sum := mac.Sum(nil)
	switch v.Encoding {
	case "hex":
		return hex.EncodeToString(sum), nil
	case "base64":
		return base64.StdEncoding.EncodeToString(sum), nil
	}
	return "", fmt.Errorf("unknown encoding %s", v.Encoding)
}

func main() {
	path := "test-vectors.json"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var file struct {
		Vectors []vector `json:"vectors"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	failures := 0
	for _, v := range file.Vectors {
		signature, err := signatureOf(v)
		if err != nil {
			fmt.Printf("FAIL %s: %v\n", v.Name, err)
			failures++
		} else if !hmac.Equal([]byte(signature), []byte(v.Signature)) {
			fmt.Printf("FAIL %s: computed %s\n", v.Name, signature)
			failures++
		}
	}
	if failures > 0 {
		fmt.Printf("%d of %d vectors failed\n", failures, len(file.Vectors))
		os.Exit(1)
	}
	fmt.Printf("%d vectors OK\n", len(file.Vectors))
}
