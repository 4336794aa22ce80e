// Checks the signing test vectors with Java's standard library (Java 17 or later).
//
//     java CheckVectors.java [path/to/test-vectors.json]
//
// For each vector: the bytes of bodyBase64 must be the UTF-8 encoding of body, and
// HMAC(algorithm, key = UTF-8 bytes of secretKey, message = those bytes), encoded as
// lowercase hex or padded standard base64, must be the vector's signature.
//
// For each message-signature vector (RFC 9421, hmac-sha256): the body's bytes as above
// (when it has one); contentDigest, when present, must be "sha-256=:<base64>:" or
// "sha-512=:<base64>:" of those bytes, and is the value of any "content-digest" line of
// signatureBase; the last line of signatureBase must be "@signature-params" with the
// value of signatureInput after its label; and HMAC-SHA256(key = secretKeyBase64's
// bytes, or else the UTF-8 bytes of secretKey, message = the UTF-8 bytes of
// signatureBase), in padded standard base64, must be the one in signature
// ("<label>=:<base64>:", the label of signatureInput).
//
// Prints one line per failure and "N vectors and M message-signature vectors OK" when
// all pass; exits 1 otherwise. The JDK has no JSON parser, so a small one for this
// file's shapes (objects, arrays, strings, numbers, true, false, null) is at the end.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class CheckVectors {
  public static void main(String[] args) throws Exception {
    Path path = Path.of(args.length > 0 ? args[0] : "test-vectors.json");
    Map<?, ?> file = (Map<?, ?>) new Json(Files.readString(path, StandardCharsets.UTF_8)).parse();
    List<?> vectors = (List<?>) file.get("vectors");
    List<?> messageSignatures =
        file.get("messageSignatures") instanceof List<?> list ? list : List.of();
    int failures =
        failuresOf(vectors, CheckVectors::signatureOf)
            + failuresOf(messageSignatures, CheckVectors::messageSignatureOf);
    if (failures > 0) {
      int total = vectors.size() + messageSignatures.size();
      System.out.println(failures + " of " + total + " vectors failed");
      System.exit(1);
    }
    System.out.println(
        vectors.size()
            + " vectors and "
            + messageSignatures.size()
            + " message-signature vectors OK");
  }

  /** A check of one vector: the signature it computes, or IllegalArgumentException. */
  interface Check {
    String signatureOf(Map<?, ?> vector) throws Exception;
  }

  /** Checks each vector; prints a line for each failure and returns how many failed. */
  static int failuresOf(List<?> vectors, Check check) throws Exception {
    int failures = 0;
    for (Object item : vectors) {
      Map<?, ?> vector = (Map<?, ?>) item;
      String name = (String) vector.get("name");
      String signature;
      try {
        signature = check.signatureOf(vector);
      } catch (IllegalArgumentException error) {
        System.out.println("FAIL " + name + ": " + error.getMessage());
        failures++;
        continue;
      }
      byte[] expected = ((String) vector.get("signature")).getBytes(StandardCharsets.UTF_8);
      if (!MessageDigest.isEqual(signature.getBytes(StandardCharsets.UTF_8), expected)) {
        System.out.println("FAIL " + name + ": computed " + signature);
        failures++;
      }
    }
    return failures;
  }

  /** The signature computed over the vector's exact body bytes. */
  static String signatureOf(Map<?, ?> vector) throws Exception {
    byte[] body = Base64.getDecoder().decode((String) vector.get("bodyBase64"));
    if (!Arrays.equals(body, ((String) vector.get("body")).getBytes(StandardCharsets.UTF_8))) {
      throw new IllegalArgumentException("bodyBase64 is not the UTF-8 encoding of body");
    }
    String algorithm =
        switch ((String) vector.get("algorithm")) {
          case "sha256" -> "HmacSHA256";
          case "sha512" -> "HmacSHA512";
          default -> throw new IllegalArgumentException("unknown algorithm");
        };
    Mac mac = Mac.getInstance(algorithm);
    byte[] key = ((String) vector.get("secretKey")).getBytes(StandardCharsets.UTF_8);
    mac.init(new SecretKeySpec(key, algorithm));
    byte[] sum = mac.doFinal(body);
    return switch ((String) vector.get("encoding")) {
      case "hex" -> HexFormat.of().formatHex(sum);
      case "base64" -> Base64.getEncoder().encodeToString(sum);
      default -> throw new IllegalArgumentException("unknown encoding");
    };
  }

  /** The exact bytes of a message-signature vector's body; null when it has none. */
  static byte[] bodyOf(Map<?, ?> vector) {
    String text = (String) vector.get("body");
    String encoded = (String) vector.get("bodyBase64");
    if (encoded == null) return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    byte[] body = Base64.getDecoder().decode(encoded);
    if (text != null && !Arrays.equals(body, text.getBytes(StandardCharsets.UTF_8))) {
      throw new IllegalArgumentException("bodyBase64 is not the UTF-8 encoding of body");
    }
    return body;
  }

  /** The Signature value computed from the vector's signature base. */
  static String messageSignatureOf(Map<?, ?> vector) throws Exception {
    byte[] body = bodyOf(vector);
    String digest = (String) vector.get("contentDigest");
    if (digest != null) {
      String algorithm = digest.split("=", 2)[0];
      String hash =
          switch (algorithm) {
            case "sha-256" -> "SHA-256";
            case "sha-512" -> "SHA-512";
            default -> throw new IllegalArgumentException("unknown content digest " + algorithm);
          };
      if (body == null) throw new IllegalArgumentException("contentDigest without a body");
      String computed =
          algorithm
              + "=:"
              + Base64.getEncoder().encodeToString(MessageDigest.getInstance(hash).digest(body))
              + ":";
      if (!MessageDigest.isEqual(
          computed.getBytes(StandardCharsets.UTF_8), digest.getBytes(StandardCharsets.UTF_8))) {
        throw new IllegalArgumentException("content digest: computed " + computed);
      }
    }
    String base = (String) vector.get("signatureBase");
    String[] lines = base.split("\n", -1);
    String prefix = "\"content-digest\": ";
    for (String line : lines) {
      if (line.startsWith(prefix) && !line.substring(prefix.length()).equals(digest)) {
        throw new IllegalArgumentException(
            "the signature base's content-digest is not contentDigest");
      }
    }
    String[] input = ((String) vector.get("signatureInput")).split("=", 2);
    String label = input[0];
    String params = input.length > 1 ? input[1] : "";
    if (!lines[lines.length - 1].equals("\"@signature-params\": " + params)) {
      throw new IllegalArgumentException(
          "the signature base does not end with signatureInput's parameters");
    }
    String keyBase64 = (String) vector.get("secretKeyBase64");
    byte[] key =
        keyBase64 != null
            ? Base64.getDecoder().decode(keyBase64)
            : ((String) vector.get("secretKey")).getBytes(StandardCharsets.UTF_8);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    byte[] sum = mac.doFinal(base.getBytes(StandardCharsets.UTF_8));
    return label + "=:" + Base64.getEncoder().encodeToString(sum) + ":";
  }

  /** A small JSON parser (RFC 8259 syntax) into Map, List, String, Double, Boolean and null. */
  static final class Json {
    private final String text;
    private int at;

    Json(String text) {
      this.text = text;
    }

    Object parse() {
      Object value = value();
      skipSpace();
      if (at != text.length()) throw error("end of input");
      return value;
    }

    private Object value() {
      skipSpace();
      if (at >= text.length()) throw error("a value");
      char c = text.charAt(at);
      if (c == '{') return object();
      if (c == '[') return array();
      if (c == '"') return string();
      if (text.startsWith("true", at)) return literal("true", Boolean.TRUE);
      if (text.startsWith("false", at)) return literal("false", Boolean.FALSE);
      if (text.startsWith("null", at)) return literal("null", null);
      return number();
    }

    private Object literal(String word, Object value) {
      at += word.length();
      return value;
    }

    private Map<String, Object> object() {
      Map<String, Object> map = new LinkedHashMap<>();
      at++;
      skipSpace();
      if (peek('}')) return map;
      do {
        skipSpace();
        String key = string();
        skipSpace();
        expect(':');
        map.put(key, value());
        skipSpace();
      } while (peek(','));
      expect('}');
      return map;
    }

    private List<Object> array() {
      List<Object> list = new ArrayList<>();
      at++;
      skipSpace();
      if (peek(']')) return list;
      do {
        list.add(value());
        skipSpace();
      } while (peek(','));
      expect(']');
      return list;
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        if (at >= text.length()) throw error("a closing quote");
        char c = text.charAt(at++);
        if (c == '"') return out.toString();
        if (c < 0x20) throw error("no control character in a string");
        if (c != '\\') {
          out.append(c);
          continue;
        }
        char escape = text.charAt(at++);
        switch (escape) {
          case '"', '\\', '/' -> out.append(escape);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            // Four hex digits give one UTF-16 unit: a surrogate pair is two escapes in a row.
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            at += 4;
          }
          default -> throw error("a valid escape");
        }
      }
    }

    private Double number() {
      int start = at;
      while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
      if (start == at) throw error("a value");
      return Double.valueOf(text.substring(start, at));
    }

    private void skipSpace() {
      while (at < text.length() && " \t\n\r".indexOf(text.charAt(at)) >= 0) at++;
    }

    private boolean peek(char c) {
      if (at < text.length() && text.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (!peek(c)) throw error("'" + c + "'");
    }

    private IllegalStateException error(String expected) {
      return new IllegalStateException("JSON: expected " + expected + " at offset " + at);
    }
  }
}
