// Needs Java 17 or later (a JDK), standard library only.
// Set INSTITUTION_API_URL, INSTITUTION_PUBLIC_KEY,
// INSTITUTION_SECRET_KEY, and USER_ID (the id create
// returned). Run: java UpdateUser.java
import static java.lang.System.getenv;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class UpdateUser {
  public static void main(String[] args)
      throws Exception {
    String apiUrl = getenv("INSTITUTION_API_URL");
    String publicKey = getenv("INSTITUTION_PUBLIC_KEY");
    String secretKey = getenv("INSTITUTION_SECRET_KEY");
    String userId = getenv("USER_ID");

    // Update replaces the details: send all of them. The
    // body is built once: these bytes are signed and
    // sent.
    byte[] body = """
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
        }""".getBytes(StandardCharsets.UTF_8);

    // Sign the bytes you send, never a re-serialization:
    // a JSON library's output for the same data has other
    // bytes (spaces, order, escapes) and gets a 401.
    // HMAC-SHA256, lowercase hex.
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(
        secretKey.getBytes(StandardCharsets.UTF_8),
        "HmacSHA256"));
    String signature =
        HexFormat.of().formatHex(mac.doFinal(body));

    HttpRequest request = HttpRequest.newBuilder()
        .uri(URI.create(
            apiUrl + "/api/v1/external/users/" + userId))
        .header("Authorization",
            publicKey + ":" + signature)
        .header("Content-Type", "application/json")
        .PUT(BodyPublishers.ofByteArray(body))
        .build();
    HttpResponse<String> response = HttpClient
        .newHttpClient()
        .send(request, BodyHandlers.ofString());

    System.out.println(response.statusCode());
    System.out.println(response.body());
    if (response.statusCode() >= 300) {
      System.exit(1);
    }
  }
}
