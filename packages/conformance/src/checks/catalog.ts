/**
 * The checks of the suite and of the proxy, each with a stable id: the id is what the output, the
 * JUnit report and the NDJSON report name, so tools may rely on it across versions.
 */
export const CHECKS = {
  not_a_server_error:
    'No answer is a 5xx, except a 5xx other than 500 that the spec documents for the operation (a 503 with Retry-After for a fault of the infrastructure); 500 is a bug of the service, and no answer at all is one too.',
  status_code_conformance: 'Every status is one the spec documents for the operation.',
  content_type_conformance:
    'The Content-Type of every answer is a media type the spec documents for that operation and status.',
  response_schema_conformance:
    'Every JSON answer is valid against the schema the spec gives for its operation, status and media type (the create and the update shapes alike).',
  response_headers_conformance:
    'The headers the spec documents for a status are present when required and valid against their schema when present (Retry-After is an integer).',
  positive_data_acceptance:
    'A validly signed, valid body is accepted (2xx), or refused with a documented 409 the run expected; a 401 here is a failure, never a pass.',
  negative_data_rejection:
    'A validly signed body that breaks one keyword of the schema (or a path parameter that does) is refused with 400 and a problem that names the field.',
  auth_enforcement:
    'A missing or malformed Authorization header, an unknown public key, a wrong secret, a body changed after signing and a truncated signature each answer exactly 401, with the same body whatever the cause.',
  byte_exactness:
    'Bodies equal in meaning but not in bytes (whitespace, key order, \\u escapes), each signed over its own bytes, are accepted; a signature over the re-serialized form of such a body is refused.',
  stateful_create_update:
    'A new person is created (201) with what was sent, and an update of the returned id answers 200 with what was sent.',
  stateful_create_again:
    'The same person created again (same Ghana Card number, any spelling) answers 200 with the same id and the stored details unchanged.',
  stateful_unknown_id: 'An update of an id never created answers 404.',
  stateful_institution_scope:
    "A second institution's update of the first's user answers 404; its create with the same card and another mobile answers 409 revealing nothing stored; with the same card and mobile, 200 with the same id, after which it may update.",
  tolerant_reading:
    'The create and the update answers of one stored user, read by the client (normalizeUser), are the same User.',
  message_signature_replay:
    'With --message-signatures: a request signed both ways is accepted once; sent again as it was, and again without its message signature, it answers 401.',
  message_signature_stale:
    "With --message-signatures: a request whose message signature was created 600 s ago (twice the spec's window) answers 401, and so does it without its message signature.",
  message_signature_body_changed:
    'With --message-signatures: another body under the message signature (its Authorization header made for the body sent) answers 401, and so does that body with no message signature.',
  message_signature_path_changed:
    'With --message-signatures: a request signed for one resource and sent to another (a captured update of one user sent to another user) answers 401, with its message signature or without it.',
  message_signature_content_digest:
    'With --message-signatures: a message signature of a request with a body that does not cover "content-digest" answers 401, and so does the request without it.',
  request_conformance:
    'Proxy only: the request is one the spec documents (operation, Content-Type, a body valid against its schema).',
} as const;

/** A check's stable id. */
export type CheckId = keyof typeof CHECKS;

/** The result of one check on one exchange (or one sequence of them). */
export interface Outcome {
  check: CheckId;
  /** The operation's id (`createUser`), or `METHOD /path` when it has none. */
  operation: string;
  ok: boolean;
  /** Why it failed, in one sentence. */
  message?: string;
  /** What the spec expected. */
  expected?: string;
  /** What came back. */
  actual?: string;
}
