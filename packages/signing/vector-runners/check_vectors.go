// Checks the signing test vectors with Go's standard library (Go 1.19 or later).
//
//	go run check_vectors.go [path/to/test-vectors.json]
//
// For each vector: the bytes of bodyBase64 must be the UTF-8 encoding of body (Go
// strings hold the UTF-8 bytes of the JSON text), and HMAC(algorithm, key = the bytes
// of secretKey, message = those bytes), encoded as lowercase hex or padded standard
// base64, must be the vector's signature.
//
// For each message-signature vector (RFC 9421, hmac-sha256): the body's bytes as
// above (when it has one); contentDigest, when present, must be "sha-256=:<base64>:"
// or "sha-512=:<base64>:" of those bytes, and is the value of any "content-digest"
// line of signatureBase; the last line of signatureBase must be "@signature-params"
// with the value of signatureInput after its label; and HMAC-SHA256(key =
// secretKeyBase64's bytes, or else the bytes of secretKey, message = the bytes of
// signatureBase), in padded standard base64, must be the one in signature
// ("<label>=:<base64>:", the label of signatureInput).
//
// Prints one line per failure and "N vectors and M message-signature vectors OK"
// when all pass; exits 1 otherwise.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"strings"
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

// messageSignatureVector is one entry of messageSignatures; JSON null leaves a
// pointer nil.
type messageSignatureVector struct {
	Name            string  `json:"name"`
	Body            *string `json:"body"`
	BodyBase64      *string `json:"bodyBase64"`
	SecretKey       *string `json:"secretKey"`
	SecretKeyBase64 *string `json:"secretKeyBase64"`
	ContentDigest   *string `json:"contentDigest"`
	SignatureInput  string  `json:"signatureInput"`
	SignatureBase   string  `json:"signatureBase"`
	Signature       string  `json:"signature"`
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

// bodyOf gives the exact bytes of a message-signature vector's body; nil when it
// has none.
func bodyOf(v messageSignatureVector) ([]byte, error) {
	if v.BodyBase64 == nil {
		if v.Body == nil {
			return nil, nil
		}
		return []byte(*v.Body), nil
	}
	body, err := base64.StdEncoding.Strict().DecodeString(*v.BodyBase64)
	if err != nil {
		return nil, fmt.Errorf("bodyBase64: %v", err)
	}
	if v.Body != nil && string(body) != *v.Body {
		return nil, errors.New("bodyBase64 is not the UTF-8 encoding of body")
	}
	return body, nil
}

// messageSignatureOf computes the Signature value from the vector's signature base.
func messageSignatureOf(v messageSignatureVector) (string, error) {
	body, err := bodyOf(v)
	if err != nil {
		return "", err
	}
	digest := ""
	if v.ContentDigest != nil {
		digest = *v.ContentDigest
		algorithm := strings.SplitN(digest, "=", 2)[0]
		var sum []byte
		switch algorithm {
		case "sha-256":
			s := sha256.Sum256(body)
			sum = s[:]
		case "sha-512":
			s := sha512.Sum512(body)
			sum = s[:]
		default:
			return "", fmt.Errorf("unknown content digest %s", algorithm)
		}
		if body == nil {
			return "", errors.New("contentDigest without a body")
		}
		computed := algorithm + "=:" + base64.StdEncoding.EncodeToString(sum) + ":"
		if !hmac.Equal([]byte(computed), []byte(digest)) {
			return "", fmt.Errorf("content digest: computed %s", computed)
		}
	}
	lines := strings.Split(v.SignatureBase, "\n")
	const prefix = `"content-digest": `
	for _, line := range lines {
		if strings.HasPrefix(line, prefix) &&
			(v.ContentDigest == nil || line[len(prefix):] != digest) {
			return "", errors.New("the signature base's content-digest is not contentDigest")
		}
	}
	label, params, _ := strings.Cut(v.SignatureInput, "=")
	if lines[len(lines)-1] != `"@signature-params": `+params {
		return "", errors.New("the signature base does not end with signatureInput's parameters")
	}
	var key []byte
	if v.SecretKeyBase64 != nil {
		key, err = base64.StdEncoding.DecodeString(*v.SecretKeyBase64)
		if err != nil {
			return "", fmt.Errorf("secretKeyBase64: %v", err)
		}
	} else if v.SecretKey != nil {
		key = []byte(*v.SecretKey)
	} else {
		return "", errors.New("no secretKey or secretKeyBase64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(v.SignatureBase))
	return label + "=:" + base64.StdEncoding.EncodeToString(mac.Sum(nil)) + ":", nil
}

// report prints a line for a vector that fails and says whether it did.
func report(name string, signature string, err error, expected string) bool {
	if err != nil {
		fmt.Printf("FAIL %s: %v\n", name, err)
		return true
	}
	if !hmac.Equal([]byte(signature), []byte(expected)) {
		fmt.Printf("FAIL %s: computed %s\n", name, signature)
		return true
	}
	return false
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
		Vectors           []vector                 `json:"vectors"`
		MessageSignatures []messageSignatureVector `json:"messageSignatures"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	failures := 0
	for _, v := range file.Vectors {
		signature, err := signatureOf(v)
		if report(v.Name, signature, err, v.Signature) {
			failures++
		}
	}
	for _, v := range file.MessageSignatures {
		signature, err := messageSignatureOf(v)
		if report(v.Name, signature, err, v.Signature) {
			failures++
		}
	}
	if failures > 0 {
		total := len(file.Vectors) + len(file.MessageSignatures)
		fmt.Printf("%d of %d vectors failed\n", failures, total)
		os.Exit(1)
	}
	fmt.Printf("%d vectors and %d message-signature vectors OK\n",
		len(file.Vectors), len(file.MessageSignatures))
}
