// Needs Java 17 or later (a JDK), standard library only.
// Set INSTITUTION_API_URL (http://localhost:8080 for the
// reference server), INSTITUTION_PUBLIC_KEY and
// INSTITUTION_SECRET_KEY. Run: java CreateUser.java
import static java.lang.System.getenv;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class CreateUser {
  public static void main(String[] args)
      throws Exception {
    URI uri = URI.create(getenv("INSTITUTION_API_URL")
        + "/api/v1/external/users");
    String publicKey = getenv("INSTITUTION_PUBLIC_KEY");
    String secretKey = getenv("INSTITUTION_SECRET_KEY");

    // The body, built once: these bytes are signed and
    // sent.
    byte[] body = """
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
        }""".getBytes(UTF_8);

    // Sign the bytes you send, never a re-serialization:
    // a JSON library's output for the same data has other
    // bytes (spaces, order, escapes) and gets a 401.
    // HMAC-SHA256, lowercase hex.
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(
        secretKey.getBytes(UTF_8), "HmacSHA256"));
    String signature =
        HexFormat.of().formatHex(mac.doFinal(body));

    // And an RFC 9421 message signature: it also covers
    // the method, the path, the time and a one-time
    // nonce, so a captured request cannot be replayed or
    // sent elsewhere.
    Base64.Encoder base64 = Base64.getEncoder();
    byte[] bodyHash =
        MessageDigest.getInstance("SHA-256").digest(body);
    String digest = "sha-256=:"
        + base64.encodeToString(bodyHash) + ":";
    byte[] random = new byte[16];
    new SecureRandom().nextBytes(random);
    String nonce = Base64.getUrlEncoder().withoutPadding()
        .encodeToString(random);
    String params = String.format(
        "(\"@method\" \"@path\" \"content-digest\")"
            + ";created=%d;nonce=\"%s\""
            + ";keyid=\"%s\";alg=\"hmac-sha256\"",
        Instant.now().getEpochSecond(), nonce, publicKey);
    String signatureBase = String.join("\n",
        "\"@method\": POST",
        "\"@path\": " + uri.getRawPath(),
        "\"content-digest\": " + digest,
        "\"@signature-params\": " + params);
    String messageSignature = base64.encodeToString(
        mac.doFinal(signatureBase.getBytes(UTF_8)));

    HttpRequest request = HttpRequest.newBuilder(uri)
        .header("Authorization",
            publicKey + ":" + signature)
        .header("Content-Digest", digest)
        .header("Signature-Input", "sig1=" + params)
        .header("Signature",
            "sig1=:" + messageSignature + ":")
        .header("Content-Type", "application/json")
        .POST(BodyPublishers.ofByteArray(body))
        .build();
    HttpResponse<String> response = HttpClient
        .newHttpClient()
        .send(request, BodyHandlers.ofString());

    // 201 Created the first time; 200 OK when sent again.
    System.out.println(response.statusCode());
    System.out.println(response.body());
    if (response.statusCode() >= 300) {
      System.exit(1);
    }
  }
}
