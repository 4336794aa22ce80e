import type { SignatureOptions } from '@institution-api/signing';
import type { AuthorizationRecipe } from '../http/authorization.js';
import type { Exchange } from '../http/exchange.js';

/** A string as one single-quoted bash word, any bytes inside kept as they are. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The `sign FILE SECRET` function of the script, for the run's algorithm and encoding. */
function signFunction({ algorithm = 'sha256', encoding = 'hex' }: SignatureOptions): string {
  const digest = `openssl dgst -${algorithm} -hmac "$2"`;
  return encoding === 'base64'
    ? `sign() { ${digest} -binary "$1" | openssl base64 -A; }`
    : `sign() { ${digest} "$1" | awk '{print $NF}'; }`;
}

/** The Authorization value of a request, as bash that computes it at replay time. */
function authorizationWord(
  recipe: AuthorizationRecipe,
  file: string,
  index: number,
  lines: string[],
): string {
  switch (recipe.kind) {
    case 'signed':
      return recipe.as === 'other'
        ? `"$INSTITUTION_OTHER_PUBLIC_KEY:$(sign ${file} "$INSTITUTION_OTHER_SECRET_KEY")"`
        : `"$INSTITUTION_PUBLIC_KEY:$(sign ${file} "$INSTITUTION_SECRET_KEY")"`;
    case 'none':
      return "''";
    case 'literal':
      return shellQuote(recipe.value);
    case 'unknown-key':
      return `${shellQuote(`${recipe.publicKey}:`)}"$(sign ${file} "$INSTITUTION_SECRET_KEY")"`;
    case 'wrong-secret':
      return `"$INSTITUTION_PUBLIC_KEY:$(sign ${file} ${shellQuote(recipe.secret)})"`;
    case 'signed-text': {
      const signed = `signed-${index}.json`;
      lines.push(`# the signature covers other bytes than the body sent:`);
      lines.push(`printf '%s' ${shellQuote(new TextDecoder().decode(recipe.text))} > ${signed}`);
      return `"$INSTITUTION_PUBLIC_KEY:$(sign ${signed} "$INSTITUTION_SECRET_KEY")"`;
    }
    case 'truncated':
      lines.push(`SIGNATURE=$(sign ${file} "$INSTITUTION_SECRET_KEY")`);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
      return '"$INSTITUTION_PUBLIC_KEY:${SIGNATURE%?}"';
  }
}

/**
 * A bash script that sends the same requests again, byte for byte, with nothing but bash, curl
 * and openssl. Signatures are computed at replay time from the environment
 * (`INSTITUTION_PUBLIC_KEY`, `INSTITUTION_SECRET_KEY`, and the `_OTHER_` pair for the second
 * institution), so the script carries no secret and no captured signature that could be replayed
 * elsewhere. An id that an earlier request of the sequence answered is read from that answer.
 */
export function reproduction(exchanges: Exchange[], signature: SignatureOptions): string {
  const usesOther = exchanges.some(
    ({ request }) =>
      request.authorization.kind === 'signed' && request.authorization.as === 'other',
  );
  const lines = [
    '#!/usr/bin/env bash',
    `# Needs bash, curl and openssl. Set INSTITUTION_API_URL, INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY${usesOther ? ',\n# INSTITUTION_OTHER_PUBLIC_KEY and INSTITUTION_OTHER_SECRET_KEY (the second institution)' : ''}.`,
    'set -eu',
    signFunction(signature),
    'send() { # method, target, body file, Authorization value (empty for none)',
    `  local args=(-sS -i -X "$1" -H 'Content-Type: application/json' --data-binary "@$3")`,
    '  if [ -n "$4" ]; then args+=(-H "Authorization: $4"); fi',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
    '  curl "${args[@]}" "$INSTITUTION_API_URL$2"',
    '}',
  ];
  if (exchanges.some(({ request }) => request.idFrom)) {
    lines.push(
      'value_of() { # the first "<name>": "<value>" of an answer',
      '  local pattern="\\"$1\\"[[:space:]]*:[[:space:]]*\\"([^\\"]+)\\""',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
      '  if [[ $2 =~ $pattern ]]; then printf \'%s\' "${BASH_REMATCH[1]}"; fi',
      '}',
    );
  }
  // Requests made before the sequence to have a resource (the create behind an update's id) go
  // first, so the script stands alone on any service.
  const ordered: Exchange[] = [];
  for (const exchange of exchanges) {
    const producer = exchange.request.idFrom?.producer;
    if (producer && !ordered.includes(producer)) ordered.push(producer);
    ordered.push(exchange);
  }
  const sourceOf = (idFrom: NonNullable<Exchange['request']['idFrom']>) =>
    ordered.indexOf(idFrom.producer ?? (exchanges[idFrom.exchange] as Exchange)) + 1;
  ordered.forEach(({ request }, position) => {
    const index = position + 1;
    const file = `request-${index}.json`;
    let target = shellQuote(request.target);
    let shown = request.target;
    const binding: string[] = [];
    if (request.idFrom) {
      const from = sourceOf(request.idFrom);
      const value = encodeURIComponent(request.idFrom.value);
      binding.push(
        `ID_${from}=$(value_of ${shellQuote(request.idFrom.property)} "$RESPONSE_${from}")`,
      );
      target = request.target
        .split(value)
        .map((part) => (part === '' ? '' : shellQuote(part)))
        .join(`"$ID_${from}"`);
      shown = request.target
        .split(value)
        .join(`<the ${request.idFrom.property} answer ${from} gave>`);
    }
    lines.push('', `# ${index}. ${request.method} ${shown}`);
    lines.push(
      `printf '%s' ${shellQuote(new TextDecoder().decode(request.body ?? new Uint8Array()))} > ${file}`,
      ...binding,
    );
    const authorization = authorizationWord(request.authorization, file, index, lines);
    lines.push(`RESPONSE_${index}=$(send ${request.method} ${target} ${file} ${authorization})`);
    lines.push(`printf '%s\\n\\n' "$RESPONSE_${index}"`);
  });
  return `${lines.join('\n')}\n`;
}
