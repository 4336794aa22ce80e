/**
 * Nothing a diagnosis says repeats the secret key (spec: `SignatureDiagnosis`: never the secret
 * key): whatever the request carried, a value that holds this key pair's secret key, or the part
 * of it after its prefix, is replaced by words saying what it was. The diagnosis never quotes a
 * value of the request that could be a secret in the first place; this is the last guard.
 *
 * @module
 */

/** The texts that give the secret key away: it, and what follows its prefix when that is long. */
export function secretForms(secretKey: string): string[] {
  const forms = [secretKey];
  const rest = secretKey.replace(/^[a-z]{1,8}_/, '');
  if (rest !== secretKey && rest.length >= 12) forms.push(rest);
  return forms.filter((form) => form.length >= 8);
}

/** `text` with every form of the secret key replaced. */
export function withoutSecret(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) out = out.replaceAll(form, '(the secret key: not shown)');
  return out;
}

/** `value` (strings, objects and arrays of them) with every form of the secret key replaced. */
export function redactSecret<T>(value: T, secretKey: string): T {
  const forms = secretForms(secretKey);
  const visit = (item: unknown): unknown => {
    if (typeof item === 'string') return withoutSecret(item, forms);
    if (Array.isArray(item)) return item.map(visit);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, visit(inner)]));
    }
    return item;
  };
  return visit(value) as T;
}
