import type { SignatureOptions } from '@institution-api/signing';
import type { AuthorizationRecipe } from '../http/authorization.js';
import type { Exchange } from '../http/exchange.js';
import { DEFAULT_COMPONENTS, type MessageSignatureRecipe } from '../http/message-signature.js';

/**
 * The `msgsig` function of the script: an RFC 9421 message signature as
 * `@institution-api/signing` makes it (`Content-Digest` sha-256, `Signature-Input` with
 * `created`, a random nonce, `keyid`, `alg="hmac-sha256"`, `Signature` the base64 HMAC-SHA256 of
 * the signature base), for the components `@method`, `@path` and `content-digest`, made at replay
 * time into MSG_DIGEST, MSG_INPUT and MSG_SIGNATURE.
 */
const MSGSIG_FUNCTION = [
  'msgsig() { # method, target, body file, public key, secret key, seconds added to created, components',
  "  local url=\"$INSTITUTION_API_URL$2\" rest path created nonce list='' base='' c nl=$'\\n'",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
  '  rest="${url#*://}"; path="/${rest#*/}"; path="${path%%\\?*}"',
  '  MSG_DIGEST="sha-256=:$(openssl dgst -sha256 -binary "$3" | openssl base64 -A):"',
  '  created=$(( $(date +%s) + $6 ))',
  "  nonce=$(openssl rand -base64 16 | tr '+/' '-_' | tr -d '=')",
  '  for c in $7; do',
  '    list="$list \\"$c\\""',
  '    case $c in',
  '      @method) base="$base\\"@method\\": $1$nl" ;;',
  '      @path) base="$base\\"@path\\": $path$nl" ;;',
  '      content-digest) base="$base\\"content-digest\\": $MSG_DIGEST$nl" ;;',
  '    esac',
  '  done',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
  '  MSG_INPUT="(${list# });created=$created;nonce=\\"$nonce\\";keyid=\\"$4\\";alg=\\"hmac-sha256\\""',
  '  base="$base\\"@signature-params\\": $MSG_INPUT"',
  '  MSG_INPUT="sig1=$MSG_INPUT"',
  '  MSG_SIGNATURE="sig1=:$(printf \'%s\' "$base" | openssl dgst -sha256 -hmac "$5" -binary | openssl base64 -A):"',
  '}',
];

/**
 * The lines that make a request's message signature at replay time, and the words that pass its
 * three fields to `send` (nothing for none). `MSG_<index>` keeps them for a later replay.
 */
function messageSignatureWords(
  recipe: MessageSignatureRecipe | undefined,
  request: { method: string; target: string },
  file: string,
  index: number,
  lines: string[],
  indexOf: (request: Exchange['request']) => number,
): string {
  if (!recipe || recipe.kind === 'none') return '';
  if (recipe.kind === 'same-as') {
    const earlier = indexOf(recipe.request);
    if (earlier < 1) {
      lines.push('# (it carried the message signature of a request this script does not send)');
      return '';
    }
    lines.push(`# the very same message signature as request ${earlier}:`);
    return ` "\${MSG_${earlier}[@]}"`;
  }
  const keys =
    recipe.as === 'other'
      ? '"$INSTITUTION_OTHER_PUBLIC_KEY" "$INSTITUTION_OTHER_SECRET_KEY"'
      : '"$INSTITUTION_PUBLIC_KEY" "$INSTITUTION_SECRET_KEY"';
  let signedFile = file;
  if (recipe.body) {
    signedFile = `signed-body-${index}.json`;
    lines.push('# the message signature covers other body bytes than those sent:');
    lines.push(`printf '%s' ${shellQuote(new TextDecoder().decode(recipe.body))} > ${signedFile}`);
  }
  let target = request.target;
  if (recipe.target) {
    lines.push(
      `# the message signature is made for ${recipe.target} (the run's resource), the request sent to another:`,
    );
    target = shellQuote(recipe.target);
  }
  const components = recipe.components ?? DEFAULT_COMPONENTS;
  lines.push(
    `msgsig ${request.method} ${target} ${signedFile} ${keys} ${recipe.createdOffset ?? 0} ${shellQuote(components.join(' '))}`,
    `MSG_${index}=("$MSG_DIGEST" "$MSG_INPUT" "$MSG_SIGNATURE")`,
  );
  return ` "\${MSG_${index}[@]}"`;
}

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
    ...(exchanges.some(({ request }) => (request.messageSignature?.kind ?? 'none') !== 'none')
      ? MSGSIG_FUNCTION
      : []),
    'send() { # method, target, body file, Authorization value (empty for none), message signature fields',
    `  local args=(-sS -i -X "$1" -H 'Content-Type: application/json' --data-binary "@$3")`,
    '  if [ -n "$4" ]; then args+=(-H "Authorization: $4"); fi',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
    '  if [ -n "${5-}" ]; then args+=(-H "Content-Digest: $5" -H "Signature-Input: $6" -H "Signature: $7"); fi',
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
    const fields = messageSignatureWords(
      request.messageSignature,
      { method: request.method, target },
      file,
      index,
      lines,
      (earlier) => ordered.findIndex((exchange) => exchange.request === earlier) + 1,
    );
    lines.push(
      `RESPONSE_${index}=$(send ${request.method} ${target} ${file} ${authorization}${fields})`,
    );
    lines.push(`printf '%s\\n\\n' "$RESPONSE_${index}"`);
  });
  return `${lines.join('\n')}\n`;
}
