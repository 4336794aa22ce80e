// Mistakes integrators make when they sign a create in Java with the JDK alone
// (String.format, javax.crypto.Mac, HttpClient, HttpURLConnection), one method
// each, run as `java Mistakes <case>`. Each is the ordinary code a Java
// developer writes; the one line that goes wrong is marked "MISTAKE". The
// corpus (../../corpus.ts) says what the sandbox and the doctor must answer.
//
// Environment: API_URL, PUBLIC_KEY, SECRET_KEY, and USER_FILE, the user's
// fields in a properties file in UTF-8 (email, firstName, lastName,
// mobileNumber, ghanaCardNumber, monthlyIncome, image, accountNumber,
// accountName, network).
import static java.lang.System.getenv;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class Mistakes {
  static final URI URL = URI.create(getenv("API_URL") + "/api/v1/external/users");
  static final String PUBLIC_KEY = getenv("PUBLIC_KEY");
  static final String SECRET_KEY = getenv("SECRET_KEY");

  static final String TEMPLATE = "{\"email\":\"%s\",\"firstName\":\"%s\",\"lastName\":\"%s\","
      + "\"mobileNumber\":\"%s\",\"ghanaCardNumber\":\"%s\",\"monthlyIncome\":%s,"
      + "\"image\":\"%s\",\"accountType\":\"MOMO\",\"accountNumber\":\"%s\","
      + "\"accountName\":\"%s\",\"network\":\"%s\"}";

  static final Properties USER = new Properties();

  static String field(String name) {
    if (USER.isEmpty()) {
      try (var reader = Files.newBufferedReader(Path.of(getenv("USER_FILE")), UTF_8)) {
        USER.load(reader);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return USER.getProperty(name, "");
  }

  static String json(String income, Function<String, String> escape) {
    return String.format(Locale.ROOT, TEMPLATE,
        escape.apply(field("email")), escape.apply(field("firstName")),
        escape.apply(field("lastName")), escape.apply(field("mobileNumber")),
        escape.apply(field("ghanaCardNumber")), income,
        escape.apply(field("image")), escape.apply(field("accountNumber")),
        escape.apply(field("accountName")), escape.apply(field("network")));
  }

  static String json() {
    return json(field("monthlyIncome"), value -> value);
  }

  static byte[] hmac(byte[] key, byte[] message) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(message);
  }

  static String hmacHex(byte[] message) throws Exception {
    return HexFormat.of().formatHex(hmac(SECRET_KEY.getBytes(UTF_8), message));
  }

  static int post(byte[] body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URL)
        .POST(BodyPublishers.ofByteArray(body));
    headers.forEach(request::header);
    return HttpClient.newHttpClient()
        .send(request.build(), BodyHandlers.discarding()).statusCode();
  }

  static Map<String, String> signedHeaders(String signature) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("Authorization", PUBLIC_KEY + ":" + signature);
    return headers;
  }

  static String contentDigest(byte[] body) throws Exception {
    byte[] hash = MessageDigest.getInstance("SHA-256").digest(body);
    return "sha-256=:" + Base64.getEncoder().encodeToString(hash) + ":";
  }

  static String params(long created) {
    byte[] random = new byte[16];
    new SecureRandom().nextBytes(random);
    String nonce = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    return String.format(Locale.ROOT,
        "(\"@method\" \"@path\" \"content-digest\");created=%d;nonce=\"%s\""
            + ";keyid=\"%s\";alg=\"hmac-sha256\"",
        created, nonce, PUBLIC_KEY);
  }

  /** Adds Content-Digest, Signature-Input and Signature, from the parts given. */
  static void messageSignature(Map<String, String> headers, String digest, String params,
      String base) throws Exception {
    byte[] mac = hmac(SECRET_KEY.getBytes(UTF_8), base.getBytes(UTF_8));
    headers.put("Content-Digest", digest);
    headers.put("Signature-Input", "sig1=" + params);
    headers.put("Signature", "sig1=:" + Base64.getEncoder().encodeToString(mac) + ":");
  }

  static String base(String digest, String params) {
    return String.join("\n",
        "\"@method\": POST",
        "\"@path\": " + URL.getRawPath(),
        "\"content-digest\": " + digest,
        "\"@signature-params\": " + params);
  }

  static int control() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    Map<String, String> headers = signedHeaders(hmacHex(body));
    String digest = contentDigest(body);
    String params = params(Instant.now().getEpochSecond());
    messageSignature(headers, digest, params, base(digest, params));
    return post(body, headers);
  }

  static int platformCharsetSent() throws Exception {
    String body = json();
    String signature = hmacHex(body.getBytes(UTF_8));
    HttpURLConnection connection = (HttpURLConnection) URL.toURL().openConnection();
    connection.setRequestMethod("POST");
    connection.setDoOutput(true);
    signedHeaders(signature).forEach(connection::setRequestProperty);
    try (Writer writer = new OutputStreamWriter(connection.getOutputStream())) { // MISTAKE
      writer.write(body);
    }
    return connection.getResponseCode();
  }

  static int platformCharsetSigned() throws Exception {
    String body = json();
    String signature = hmacHex(body.getBytes()); // MISTAKE: the platform's charset
    HttpRequest.Builder request = HttpRequest.newBuilder(URL).POST(BodyPublishers.ofString(body));
    signedHeaders(signature).forEach(request::header);
    return HttpClient.newHttpClient()
        .send(request.build(), BodyHandlers.discarding()).statusCode();
  }

  static int twoDecimalsSent() throws Exception {
    double income = Double.parseDouble(field("monthlyIncome"));
    String signed = json(String.valueOf(income), value -> value);
    String body = json(String.format(Locale.ROOT, "%.2f", income), value -> value); // MISTAKE
    return post(body.getBytes(UTF_8), signedHeaders(hmacHex(signed.getBytes(UTF_8))));
  }

  /** The same body as Jackson's default pretty printer lays it out. */
  static final String JACKSON_LAYOUT = """
      {
        "email" : "%s",
        "firstName" : "%s",
        "lastName" : "%s",
        "mobileNumber" : "%s",
        "ghanaCardNumber" : "%s",
        "monthlyIncome" : %s,
        "image" : "%s",
        "accountType" : "MOMO",
        "accountNumber" : "%s",
        "accountName" : "%s",
        "network" : "%s"
      }""";

  static int jacksonLayoutSigned() throws Exception {
    String signed = String.format(Locale.ROOT, JACKSON_LAYOUT, // MISTAKE: another layout
        field("email"), field("firstName"), field("lastName"),
        field("mobileNumber"), field("ghanaCardNumber"),
        field("monthlyIncome"), field("image"), field("accountNumber"),
        field("accountName"), field("network"));
    byte[] body = json().getBytes(UTF_8);
    return post(body, signedHeaders(hmacHex(signed.getBytes(UTF_8))));
  }

  static String htmlSafe(String value) {
    StringBuilder out = new StringBuilder();
    for (char c : value.toCharArray()) {
      if ("<>&='".indexOf(c) >= 0) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  static int htmlSafeEscapesSigned() throws Exception {
    String signed = json(field("monthlyIncome"), Mistakes::htmlSafe); // MISTAKE
    byte[] body = json().getBytes(UTF_8);
    return post(body, signedHeaders(hmacHex(signed.getBytes(UTF_8))));
  }

  static String asciiOnly(String value) {
    StringBuilder out = new StringBuilder();
    for (char c : value.toCharArray()) {
      out.append(c < 128 ? String.valueOf(c) : String.format(Locale.ROOT, "\\u%04X", (int) c));
    }
    return out.toString();
  }

  static int uppercaseUnicodeEscapesSigned() throws Exception {
    String signed = json(field("monthlyIncome"), Mistakes::asciiOnly); // MISTAKE
    byte[] body = json().getBytes(UTF_8);
    return post(body, signedHeaders(hmacHex(signed.getBytes(UTF_8))));
  }

  static int publicKeyAsHmacKey() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    byte[] mac = hmac(PUBLIC_KEY.getBytes(UTF_8), body); // MISTAKE
    return post(body, signedHeaders(HexFormat.of().formatHex(mac)));
  }

  static int hexSecretDecoded() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    byte[] mac = hmac(HexFormat.of().parseHex(SECRET_KEY), body); // MISTAKE
    return post(body, signedHeaders(HexFormat.of().formatHex(mac)));
  }

  static int uppercaseHexSignature() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    byte[] mac = hmac(SECRET_KEY.getBytes(UTF_8), body);
    return post(body, signedHeaders(HexFormat.of().withUpperCase().formatHex(mac))); // MISTAKE
  }

  static int base64Signature() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    byte[] mac = hmac(SECRET_KEY.getBytes(UTF_8), body);
    return post(body, signedHeaders(Base64.getEncoder().encodeToString(mac))); // MISTAKE
  }

  static int createdLocalTime() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    Map<String, String> headers = signedHeaders(hmacHex(body));
    String digest = contentDigest(body);
    long created = LocalDateTime.now().toEpochSecond(ZoneOffset.UTC); // MISTAKE
    String params = params(created);
    messageSignature(headers, digest, params, base(digest, params));
    return post(body, headers);
  }

  static int baseWithFinalNewline() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    Map<String, String> headers = signedHeaders(hmacHex(body));
    String digest = contentDigest(body);
    String params = params(Instant.now().getEpochSecond());
    messageSignature(headers, digest, params, base(digest, params) + "\n"); // MISTAKE
    return post(body, headers);
  }

  static int digestAlgorithmUppercase() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    Map<String, String> headers = signedHeaders(hmacHex(body));
    String digest = contentDigest(body).replace("sha-256=", "SHA-256="); // MISTAKE
    String params = params(Instant.now().getEpochSecond());
    messageSignature(headers, digest, params, base(digest, params));
    return post(body, headers);
  }

  static int signatureSchemeWord() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    Map<String, String> headers = signedHeaders(hmacHex(body));
    headers.put("Authorization", "Signature " + headers.get("Authorization")); // MISTAKE
    return post(body, headers);
  }

  static int contentTypeWithCharsetSigned() throws Exception {
    byte[] body = json().getBytes(UTF_8);
    Map<String, String> headers = signedHeaders(hmacHex(body));
    String digest = contentDigest(body);
    String params = params(Instant.now().getEpochSecond())
        .replace("(\"@method\" \"@path\" \"content-digest\")",
            "(\"@method\" \"@path\" \"content-type\" \"content-digest\")");
    String base = String.join("\n",
        "\"@method\": POST",
        "\"@path\": " + URL.getRawPath(),
        "\"content-type\": application/json; charset=UTF-8", // MISTAKE: not what is sent
        "\"content-digest\": " + digest,
        "\"@signature-params\": " + params);
    messageSignature(headers, digest, params, base);
    return post(body, headers);
  }

  public static void main(String[] args) throws Exception {
    Map<String, java.util.concurrent.Callable<Integer>> cases = new LinkedHashMap<>();
    cases.put("control", Mistakes::control);
    cases.put("platform-charset-sent", Mistakes::platformCharsetSent);
    cases.put("platform-charset-signed", Mistakes::platformCharsetSigned);
    cases.put("two-decimals-sent", Mistakes::twoDecimalsSent);
    cases.put("jackson-layout-signed", Mistakes::jacksonLayoutSigned);
    cases.put("html-safe-escapes-signed", Mistakes::htmlSafeEscapesSigned);
    cases.put("uppercase-unicode-escapes-signed", Mistakes::uppercaseUnicodeEscapesSigned);
    cases.put("public-key-as-hmac-key", Mistakes::publicKeyAsHmacKey);
    cases.put("hex-secret-decoded", Mistakes::hexSecretDecoded);
    cases.put("uppercase-hex-signature", Mistakes::uppercaseHexSignature);
    cases.put("base64-signature", Mistakes::base64Signature);
    cases.put("created-local-time", Mistakes::createdLocalTime);
    cases.put("base-with-final-newline", Mistakes::baseWithFinalNewline);
    cases.put("digest-algorithm-uppercase", Mistakes::digestAlgorithmUppercase);
    cases.put("signature-scheme-word", Mistakes::signatureSchemeWord);
    cases.put("content-type-with-charset-signed", Mistakes::contentTypeWithCharsetSigned);
    System.out.println(cases.get(args[0]).call());
  }
}
