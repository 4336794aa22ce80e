// Mistakes integrators make when they sign a create in Go (encoding/json,
// crypto/hmac, net/http), one function each, run as `mistakes <case>`. Each is
// the ordinary code a Go developer writes; the one line that goes wrong is
// marked "MISTAKE". The corpus (../../corpus.ts) says what the sandbox and the
// doctor must answer.
//
// Environment: API_URL, PUBLIC_KEY, SECRET_KEY, USER_JSON (a user as JSON),
// SECRET_FILE (the secret key written by `echo`).
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

var (
	url       = os.Getenv("API_URL") + "/api/v1/external/users"
	publicKey = os.Getenv("PUBLIC_KEY")
	secretKey = os.Getenv("SECRET_KEY")
)

// Kyc and User are the integrator's types, in the order the docs show.
type Kyc struct {
	Occupation string `json:"occupation,omitempty"`
	Address    string `json:"address,omitempty"`
	ValidFrom  string `json:"validFrom,omitempty"`
	ValidTo    string `json:"validTo,omitempty"`
	RefNumber  string `json:"refNumber,omitempty"`
}

// User is a create's body.
type User struct {
	Email               string  `json:"email"`
	FirstName           string  `json:"firstName"`
	LastName            string  `json:"lastName"`
	OtherName           string  `json:"otherName,omitempty"`
	Gender              string  `json:"gender,omitempty"`
	DateOfBirth         string  `json:"dateOfBirth,omitempty"`
	MobileNumber        string  `json:"mobileNumber"`
	GhanaCardNumber     string  `json:"ghanaCardNumber"`
	MonthlyIncome       float64 `json:"monthlyIncome"`
	IsGhanaCardVerified bool    `json:"isGhanaCardVerified"`
	Image               string  `json:"image,omitempty"`
	GhanaCardImage      string  `json:"ghanaCardImage,omitempty"`
	AccountType         string  `json:"accountType,omitempty"`
	AccountNumber       string  `json:"accountNumber,omitempty"`
	AccountName         string  `json:"accountName,omitempty"`
	Network             string  `json:"network,omitempty"`
	Kyc                 *Kyc    `json:"kyc,omitempty"`
}

func user() User {
	var u User
	if err := json.Unmarshal([]byte(os.Getenv("USER_JSON")), &u); err != nil {
		panic(err)
	}
	return u
}

func userMap() map[string]interface{} {
	var m map[string]interface{}
	if err := json.Unmarshal([]byte(os.Getenv("USER_JSON")), &m); err != nil {
		panic(err)
	}
	return m
}

func marshal(v interface{}) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func hmacHex(key, message []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(message)
	return hex.EncodeToString(mac.Sum(nil))
}

func post(body []byte, headers map[string]string) int {
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	return res.StatusCode
}

func signedHeaders(body []byte, signature string) map[string]string {
	if signature == "" {
		signature = hmacHex([]byte(secretKey), body)
	}
	return map[string]string{
		"Content-Type":  "application/json",
		"Authorization": publicKey + ":" + signature,
	}
}

func nonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// messageSignature adds Content-Digest, Signature-Input and Signature to headers.
func messageSignature(headers map[string]string, body []byte, params, digest string) {
	sum := sha256.Sum256(body)
	if digest == "" {
		digest = "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	}
	if params == "" {
		params = fmt.Sprintf(`("@method" "@path" "content-digest");created=%d;nonce="%s";keyid="%s";alg="hmac-sha256"`,
			time.Now().Unix(), nonce(), publicKey)
	}
	base := strings.Join([]string{
		`"@method": POST`,
		`"@path": /api/v1/external/users`,
		`"content-digest": ` + digest,
		`"@signature-params": ` + params,
	}, "\n")
	mac := hmac.New(sha256.New, []byte(secretKey))
	mac.Write([]byte(base))
	headers["Content-Digest"] = digest
	headers["Signature-Input"] = "sig1=" + params
	headers["Signature"] = "sig1=:" + base64.StdEncoding.EncodeToString(mac.Sum(nil)) + ":"
}

func control() int {
	body := marshal(user())
	headers := signedHeaders(body, "")
	messageSignature(headers, body, "", "")
	return post(body, headers)
}

func structSignedMapSent() int {
	signature := hmacHex([]byte(secretKey), marshal(user()))
	body := marshal(userMap()) // MISTAKE: a map's keys come out sorted
	return post(body, signedHeaders(body, signature))
}

func encoderNewlineSent() int {
	u := user()
	signature := hmacHex([]byte(secretKey), marshal(u))
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(u); err != nil { // MISTAKE: adds "\n"
		panic(err)
	}
	return post(buf.Bytes(), signedHeaders(buf.Bytes(), signature))
}

func unescapedHTML(u User) []byte {
	var buf bytes.Buffer
	encoder := json.NewEncoder(&buf)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(u); err != nil {
		panic(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func htmlEscapedSigned() int {
	u := user()
	signature := hmacHex([]byte(secretKey), marshal(u)) // MISTAKE: & as \u0026
	body := unescapedHTML(u)
	return post(body, signedHeaders(body, signature))
}

func htmlEscapedSent() int {
	u := user()
	signature := hmacHex([]byte(secretKey), unescapedHTML(u))
	body := marshal(u) // MISTAKE: & as \u0026
	return post(body, signedHeaders(body, signature))
}

func secretFileNewline() int {
	secret, err := os.ReadFile(os.Getenv("SECRET_FILE")) // MISTAKE: keeps "\n"
	if err != nil {
		panic(err)
	}
	body := marshal(user())
	return post(body, signedHeaders(body, hmacHex(secret, body)))
}

func prefixStrippedBase64() int {
	key, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(secretKey, "sk_")) // MISTAKE
	if err != nil {
		panic(err)
	}
	body := marshal(user())
	return post(body, signedHeaders(body, hmacHex(key, body)))
}

func hexErrorIgnored() int {
	key, _ := hex.DecodeString(secretKey) // MISTAKE: not hex: an empty key
	body := marshal(user())
	return post(body, signedHeaders(body, hmacHex(key, body)))
}

func sha256OfBodyAndSecret() int {
	body := marshal(user())
	sum := sha256.Sum256(append(append([]byte{}, body...), secretKey...)) // MISTAKE
	return post(body, signedHeaders(body, hex.EncodeToString(sum[:])))
}

func schemeWord() int {
	body := marshal(user())
	return post(body, map[string]string{
		"Content-Type":  "application/json",
		"Authorization": "HMAC-SHA256 " + publicKey + ":" + hmacHex([]byte(secretKey), body), // MISTAKE
	})
}

func methodAndPathSigned() int {
	body := marshal(user())
	signed := "POST\n/api/v1/external/users\n" + string(body) // MISTAKE
	return post(body, signedHeaders(body, hmacHex([]byte(secretKey), []byte(signed))))
}

func signatureWithoutColons() int {
	body := marshal(user())
	headers := signedHeaders(body, "")
	messageSignature(headers, body, "", "")
	headers["Signature"] = strings.ReplaceAll(headers["Signature"], ":", "") // MISTAKE
	return post(body, headers)
}

func digestWithoutColons() int {
	body := marshal(user())
	sum := sha256.Sum256(body)
	headers := signedHeaders(body, "")
	digest := "sha-256=" + base64.StdEncoding.EncodeToString(sum[:]) // MISTAKE
	messageSignature(headers, body, "", digest)
	return post(body, headers)
}

func keyidMissing() int {
	body := marshal(user())
	headers := signedHeaders(body, "")
	params := fmt.Sprintf(`("@method" "@path" "content-digest");created=%d;nonce="%s";alg="hmac-sha256"`,
		time.Now().Unix(), nonce()) // MISTAKE: no keyid
	messageSignature(headers, body, params, "")
	return post(body, headers)
}

func keyidInstitutionName() int {
	body := marshal(user())
	headers := signedHeaders(body, "")
	params := fmt.Sprintf(`("@method" "@path" "content-digest");created=%d;nonce="%s";keyid="%s";alg="hmac-sha256"`,
		time.Now().Unix(), nonce(), "acme-microfinance") // MISTAKE
	messageSignature(headers, body, params, "")
	return post(body, headers)
}

func indentedWithTabsSent() int {
	u := user()
	signature := hmacHex([]byte(secretKey), marshal(u))
	body, err := json.MarshalIndent(u, "", "\t") // MISTAKE
	if err != nil {
		panic(err)
	}
	return post(body, signedHeaders(body, signature))
}

func secretWithLeadingSpace() int {
	secret := " " + secretKey // MISTAKE: read from "key: <secret>" after the colon
	body := marshal(user())
	return post(body, signedHeaders(body, hmacHex([]byte(secret), body)))
}

func createdNanoseconds() int {
	body := marshal(user())
	headers := signedHeaders(body, "")
	params := fmt.Sprintf(`("@method" "@path" "content-digest");created=%d;nonce="%s";keyid="%s";alg="hmac-sha256"`,
		time.Now().UnixNano(), nonce(), publicKey) // MISTAKE: nanoseconds
	messageSignature(headers, body, params, "")
	return post(body, headers)
}

func authorizationOnly() int {
	body := marshal(user())
	return post(body, signedHeaders(body, "")) // MISTAKE: the key pair requires more
}

var cases = map[string]func() int{
	"control":                   control,
	"struct-signed-map-sent":    structSignedMapSent,
	"encoder-newline-sent":      encoderNewlineSent,
	"html-escaped-signed":       htmlEscapedSigned,
	"html-escaped-sent":         htmlEscapedSent,
	"secret-file-newline":       secretFileNewline,
	"prefix-stripped-base64":    prefixStrippedBase64,
	"hex-error-ignored":         hexErrorIgnored,
	"sha256-of-body-and-secret": sha256OfBodyAndSecret,
	"scheme-word":               schemeWord,
	"method-and-path-signed":    methodAndPathSigned,
	"signature-without-colons":  signatureWithoutColons,
	"digest-without-colons":     digestWithoutColons,
	"keyid-missing":             keyidMissing,
	"keyid-institution-name":    keyidInstitutionName,
	"authorization-only":        authorizationOnly,
	"indented-with-tabs-sent":   indentedWithTabsSent,
	"secret-with-leading-space": secretWithLeadingSpace,
	"created-nanoseconds":       createdNanoseconds,
}

func main() {
	fmt.Println(cases[os.Args[1]]())
}
