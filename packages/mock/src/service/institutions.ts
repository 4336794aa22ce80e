/**
 * The institutions a mock knows, in the shape of the reference server's `INSTITUTION_CREDENTIALS`
 * (spec: "Assumptions", credentials), so one list configures both.
 *
 * @module
 */

/** One institution's key pair. */
export interface MockInstitution {
  institution: string;
  publicKey: string;
  secretKey: string;
  /**
   * The pair's signature policy (spec: "Assumptions", message signatures): `"optional"` (the
   * default: the `Authorization` header alone suffices) or `"required"` (every request also needs
   * a valid RFC 9421 message signature).
   */
  messageSignature?: 'required' | 'optional';
}

const fields = ['institution', 'publicKey', 'secretKey'] as const;

/**
 * Reads `INSTITUTION_CREDENTIALS`: a JSON array of `{ institution, publicKey, secretKey }`, each
 * optionally with `messageSignature`. Throws one message listing every problem, each naming the
 * entry and field, never repeating a value (the input holds secrets).
 */
export function parseInstitutions(json: string): MockInstitution[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('INSTITUTION_CREDENTIALS is not valid JSON (expected an array of objects).');
  }
  if (!Array.isArray(parsed)) {
    throw new Error(
      'INSTITUTION_CREDENTIALS must be a JSON array of { institution, publicKey, secretKey }.',
    );
  }
  const problems: string[] = [];
  const institutions = parsed.flatMap((item: unknown, index): MockInstitution[] => {
    const at = `INSTITUTION_CREDENTIALS[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push(`${at} must be an object with institution, publicKey and secretKey.`);
      return [];
    }
    const record = item as Record<string, unknown>;
    const before = problems.length;
    for (const field of fields) {
      if (typeof record[field] !== 'string' || (record[field] as string).trim() === '') {
        problems.push(`${at}.${field} must be a non-empty string.`);
      }
    }
    if (typeof record.publicKey === 'string' && /[^\x21-\x39\x3b-\x7e]/.test(record.publicKey)) {
      problems.push(`${at}.publicKey must be visible ASCII characters without ":".`);
    }
    const policy = record.messageSignature;
    if (policy !== undefined && policy !== 'required' && policy !== 'optional') {
      problems.push(`${at}.messageSignature must be "required" or "optional".`);
    }
    if (problems.length > before) return [];
    return [
      {
        institution: String(record.institution).trim(),
        publicKey: String(record.publicKey),
        secretKey: String(record.secretKey),
        ...(policy === undefined ? {} : { messageSignature: policy as 'required' | 'optional' }),
      },
    ];
  });
  if (problems.length > 0)
    throw new Error(`Invalid INSTITUTION_CREDENTIALS:\n${problems.join('\n')}`);
  return institutions;
}
